import { execFileSync } from "node:child_process";
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
