import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const script = path.resolve(import.meta.dirname, "layers.mjs");

/** `layers.mjs --check` over the repository, or over the tree at `root`: its exit code and output. */
function check(root?: string): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(process.execPath, [script, "--check", ...(root ? ["--root", root] : [])], { encoding: "utf8" }) };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { code: e.status, out: e.stdout };
  }
}

/** A small tree of its own: docs/architecture.md with `layers` as its list, and the given modules. */
function tree(layers: string[], modules: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "kb-layers-"));
  const list = layers.map((names, i) => `${i + 1}. ${names}`).join("\n");
  fs.mkdirSync(path.join(root, "docs"));
  fs.writeFileSync(
    path.join(root, "docs", "architecture.md"),
    `# Architecture\n\n## Layers\n\nFrom the bottom:\n\n${list}\n\n## Next\n\n1. \`lib/ignored\`\n`,
  );
  for (const [file, text] of Object.entries(modules)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

// The layers read from the code's own imports (scripts/layers.mjs) stay one-way: no cycle
// between folders under lib/ or between modules, no import against the order of levels
// docs/architecture.md declares, chromadb only in lib/vector-store and better-sqlite3 only in
// lib/db. `--check` exits 1 otherwise, with the offending lines.
describe("the code's layers", () => {
  it("have no cycle, no import against the declared order and no store reached past its folder", () => {
    const { code, out } = check();
    expect(out).toMatch(/folder-level cycles under lib\/: 0/);
    expect(out).toMatch(/module-level cycles: 0/);
    expect(out).toMatch(/declared order \(docs\/architecture.md, "## Layers"\): 12 levels; folders missing from it: 0/);
    expect(out).toMatch(/imports against the declared order: 0/);
    expect(out).toMatch(/outside their folders: 0/);
    expect(code, out).toBe(0);
  });
});

describe("the order check", () => {
  const layers = ["`lib/core`", "`lib/db`, `lib/auth`", "`app/`"];

  it("passes a tree whose folders import only the levels below them", () => {
    const root = tree(layers, {
      "lib/core/errors.ts": "export const code = 1;\n",
      "lib/db/rows.ts": 'import { code } from "../core/errors";\nexport const rows = code;\n',
      "app/page.ts": 'import { rows } from "@/lib/db/rows";\nexport const page = rows;\n',
    });
    const { code, out } = check(root);
    expect(out).toMatch(/imports against the declared order: 0/);
    expect(code, out).toBe(0);
    fs.rmSync(root, { recursive: true });
  });

  it("fails on an import of a level above, or of another folder on the same level, naming it", () => {
    const root = tree(layers, {
      "lib/core/errors.ts": 'import type { Row } from "../db/rows";\nexport type E = Row;\n',
      "lib/db/rows.ts": 'import { user } from "../auth/user";\nexport type Row = string;\nexport const r = user;\n',
      "lib/auth/user.ts": "export const user = 1;\n",
    });
    const { code, out } = check(root);
    expect(out).toMatch(/imports against the declared order: 2/);
    expect(out).toContain("lib/core/errors.ts -> lib/db/rows.ts (lib/core, level 1, imports lib/db, level 2)");
    expect(out).toContain("lib/db/rows.ts -> lib/auth/user.ts (lib/db, level 2, imports lib/auth, level 2)");
    expect(code).toBe(1);
    fs.rmSync(root, { recursive: true });
  });

  it("fails on a folder the order does not place", () => {
    const root = tree(layers, { "lib/core/errors.ts": "export const code = 1;\n", "lib/extra/thing.ts": "export const thing = 1;\n" });
    const { code, out } = check(root);
    expect(out).toMatch(/folders missing from it: 1 \(lib\/extra\)/);
    expect(code).toBe(1);
    fs.rmSync(root, { recursive: true });
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
