import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

/** The repository's own folders: a path that starts with one of them names a file or folder here. */
const FOLDERS = ["app", "components", "lib", "pages", "scripts", "e2e", "test", "demo", "public", ".ci"];
const EXTENSIONS = ["ts", "tsx", "mts", "mjs", "cjs", "js", "json", "md", "csv", "jsonl", "html", "css", "sh", "yml", "yaml"];

const folderPath = new RegExp(`(?<![\\w./$<>{}-])(?:${FOLDERS.map((f) => f.replace(".", "\\.")).join("|")})/[^\\s\`'"(),;|]*`, "g");
const filePath = new RegExp(`(?<![\\w./$<>{}-])[\\w.@\\[\\]-]+(?:/[\\w.@\\[\\]*-]+)+\\.(?:${EXTENSIONS.join("|")})(?![\\w/])`, "g");

/** Every repository path a text cites (in backticks or not), with the line it is on. */
export function citedPaths(text: string): { path: string; line: number }[] {
  const found: { path: string; line: number }[] = [];
  text.split("\n").forEach((content, i) => {
    const seen = new Set<string>();
    for (const re of [folderPath, filePath]) {
      for (const [match] of content.matchAll(re)) {
        const p = match.replace(/[.:…]+$/, "");
        if (!seen.has(p)) found.push({ path: p, line: i + 1 });
        seen.add(p);
      }
    }
  });
  return found;
}

/** True when the path exists; a `*` in its last part must match at least one file. */
function exists(p: string): boolean {
  if (!p.includes("*")) return fs.existsSync(path.join(root, p));
  const dir = path.join(root, path.dirname(p));
  const pattern = new RegExp(`^${path.basename(p).split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return fs.existsSync(dir) && fs.readdirSync(dir).some((name) => pattern.test(name));
}

const missingIn = (text: string) => citedPaths(text).filter((c) => !exists(c.path)).map((c) => `README.md:${c.line}: ${c.path}`);

describe("the paths README.md cites", () => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");

  it("all exist in the repository", () => {
    expect(missingIn(readme)).toEqual([]);
  });

  it("are found wherever the README names them: test files, folders, commands and globs", () => {
    const cited = new Set(citedPaths(readme).map((c) => c.path));
    expect(cited.size).toBeGreaterThan(40);
    for (const p of ["lib/ingest/races.test.ts", "e2e/soak.spec.ts", "lib/ingest/", "scripts/bench/hnsw.mjs", "demo/*.md", "app/api/agents/[id]/documents/route.ts"]) {
      expect(cited, p).toContain(p);
    }
  });

  it("reports a path that is gone, and leaves URLs, API routes and data directories alone", () => {
    const text = [
      "| a race | what happens | `lib/ingest-races.test.ts`, `e2e/races.spec.ts` |",
      "see lib/gone/away.ts. and `node scripts/nowhere.mjs --x`, or src/old/file.tsx",
      "`POST /api/agents/{id}/documents`, http://localhost:3000/agents/1/documents/search, `$DATA_DIR/chroma/x.json`, `<DATA_DIR>/chroma/unclean-restarts`",
    ].join("\n");
    expect(missingIn(text)).toEqual([
      "README.md:1: lib/ingest-races.test.ts",
      "README.md:2: lib/gone/away.ts",
      "README.md:2: scripts/nowhere.mjs",
      "README.md:2: src/old/file.tsx",
    ]);
  });
});
