import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startChroma } from "../scripts/chroma-server.mjs";

// One real Chroma server for the whole run; each test file uses its own collection prefix.
export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-chroma-"));
  const chroma = await startChroma({ dataDir: dir, restart: false });
  project.provide("chromaUrl", chroma.url);
  // The word-vector cache is built once and shared by every test file's DATA_DIR.
  const cache = path.resolve(import.meta.dirname, "../node_modules/.cache/kb-inspector-test");
  fs.mkdirSync(cache, { recursive: true });
  project.provide("sharedCacheDir", cache);
  return async () => {
    await chroma.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    chromaUrl: string;
    sharedCacheDir: string;
  }
}
