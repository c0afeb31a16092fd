import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// A shipped migration must do to an old database what it did when it shipped, so it reaches no
// live app code: only its own folder (the frozen copies) and better-sqlite3's types.
describe("the migrations", () => {
  it("import nothing outside their own folder", () => {
    const dir = import.meta.dirname;
    const imports = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .flatMap((f) =>
        [...fs.readFileSync(path.join(dir, f), "utf8").matchAll(/(?:from|import)\s*["']([^"']+)["']/g)].map((m) => `${f}: ${m[1]}`),
      );
    expect(imports.length).toBeGreaterThan(24);
    expect(imports.filter((i) => !/: (\.\/[\w-]+|better-sqlite3)$/.test(i))).toEqual([]);
  });
});
