import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The layers read from the code's own imports (scripts/layers.mjs) stay one-way: no cycle
// between folders under lib/ or between modules, chromadb only in lib/vector-store and
// better-sqlite3 only in lib/db. `--check` exits 1 otherwise, with the offending lines.
describe("the code's layers", () => {
  it("have no cycle and no store reached past its folder", () => {
    const script = path.resolve(import.meta.dirname, "layers.mjs");
    let out = "";
    let code = 0;
    try {
      out = execFileSync(process.execPath, [script, "--check"], { encoding: "utf8" });
    } catch (err) {
      const e = err as { status: number; stdout: string };
      code = e.status;
      out = e.stdout;
    }
    expect(out).toMatch(/folder-level cycles under lib\/: 0/);
    expect(out).toMatch(/module-level cycles: 0/);
    expect(out).toMatch(/outside their folders: 0/);
    expect(code, out).toBe(0);
  });
});

describe("SQL", () => {
  it("is written only in lib/db", () => {
    const root = path.resolve(import.meta.dirname, "..");
    const walk = (dir: string): string[] =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(dir, e.name);
        if (e.isDirectory()) return e.name === "node_modules" ? [] : walk(rel);
        return /\.(ts|tsx|mjs)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [rel] : [];
      });
    const statement = /["'`]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE TABLE)\b/;
    const outside = ["lib", "app", "pages", "components"]
      .flatMap(walk)
      .filter((f) => !f.startsWith(path.join("lib", "db") + path.sep))
      .filter((f) => statement.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(outside).toEqual([]);
  });
});
