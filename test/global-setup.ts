import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startChroma, waitForHeartbeat } from "../scripts/chroma-server.mjs";

// One real Chroma server for the whole run; each test file uses its own collection prefix.
//
// A "separate Chroma deployment" mode (see scripts/test-external-chroma.mjs):
//   KB_TEST_CHROMA_URL       use this already running server instead of starting one
//   KB_TEST_CHROMA_TENANT    with KB_TEST_CHROMA_DATABASE: create this tenant and database on
//   KB_TEST_CHROMA_DATABASE  the server, and every test file gets CHROMA_TENANT/CHROMA_DATABASE
export default async function setup(project: TestProject) {
  const tenant = process.env.KB_TEST_CHROMA_TENANT || null;
  const database = process.env.KB_TEST_CHROMA_DATABASE || null;
  if (!tenant !== !database) {
    throw new Error("Set both KB_TEST_CHROMA_TENANT and KB_TEST_CHROMA_DATABASE, or neither.");
  }

  let url: string;
  let teardown = async () => {};
  const external = process.env.KB_TEST_CHROMA_URL;
  if (external) {
    url = external.replace(/\/+$/, "");
    await waitForHeartbeat(url, 10_000);
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-chroma-"));
    const chroma = await startChroma({ dataDir: dir, restart: false });
    url = chroma.url;
    teardown = async () => {
      await chroma.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  try {
    if (tenant && database) await ensureTenantAndDatabase(url, tenant, database);
  } catch (err) {
    await teardown();
    throw err;
  }

  project.provide("chromaUrl", url);
  project.provide("chromaTenant", tenant);
  project.provide("chromaDatabase", database);
  // The word-vector cache is built once and shared by every test file's DATA_DIR.
  const cache = path.resolve(import.meta.dirname, "../node_modules/.cache/kb-inspector-test");
  fs.mkdirSync(cache, { recursive: true });
  project.provide("sharedCacheDir", cache);
  return teardown;
}

/**
 * Creates the tenant and the database in it through Chroma's v2 HTTP API (the endpoints
 * chromadb's AdminClient calls: POST /api/v2/tenants, POST /api/v2/tenants/{tenant}/databases).
 * Chroma answers 409 for one that exists already, which is fine: a running server may be reused.
 */
async function ensureTenantAndDatabase(url: string, tenant: string, database: string) {
  const create = async (where: string, name: string) => {
    const res = await fetch(`${url}${where}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    if (!res.ok && res.status !== 409) {
      throw new Error(`Chroma at ${url} refused to create "${name}" (POST ${where}): HTTP ${res.status} ${await res.text()}`);
    }
  };
  await create("/api/v2/tenants", tenant);
  await create(`/api/v2/tenants/${encodeURIComponent(tenant)}/databases`, database);
  const check = await fetch(`${url}/api/v2/tenants/${encodeURIComponent(tenant)}/databases/${encodeURIComponent(database)}`);
  if (!check.ok)
    throw new Error(`Chroma at ${url} has no database "${database}" in tenant "${tenant}" after creating it: HTTP ${check.status}`);
}

declare module "vitest" {
  export interface ProvidedContext {
    chromaUrl: string;
    /** KB_TEST_CHROMA_TENANT / KB_TEST_CHROMA_DATABASE, created on the server; null: Chroma's defaults. */
    chromaTenant: string | null;
    chromaDatabase: string | null;
    sharedCacheDir: string;
  }
}
