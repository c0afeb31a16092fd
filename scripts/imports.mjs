// The app's static imports as scripts/layers.mjs and scripts/import-closure.mjs read them: which
// files are sources, what an import statement names, and the file an `@/` or relative import resolves to.
import fs from "node:fs";
import path from "node:path";

// `--root DIR` reads another tree (the layer check's tests run it on small temporary ones).
const rootArg = process.argv.indexOf("--root");
export const root = rootArg > 0 ? path.resolve(process.argv[rootArg + 1]) : path.resolve(import.meta.dirname, "..");
export const EXT = [".ts", ".tsx", ".mjs", ".js"];

/** The files under `p` (a folder or one file, relative to the root), node_modules left out. */
export function files(p) {
  const abs = path.join(root, p);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [p];
  return fs.readdirSync(abs).flatMap((e) => (e === "node_modules" ? [] : files(path.join(p, e))));
}
export const isSource = (f) => EXT.includes(path.extname(f)) && !/\.(test|spec)\.[tj]sx?$/.test(f) && !f.endsWith(".d.ts");

/** The file (relative to the root) an import of `spec` from `from` loads, or null for a package. */
export function resolve(from, spec) {
  let base;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = path.join(path.dirname(from), spec);
  else return null;
  for (const c of [base, ...EXT.map((e) => base + e), ...EXT.map((e) => path.join(base, `index${e}`))]) {
    if (fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile()) return path.normalize(c);
  }
  return null;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s(?:type\s)?[^'"`;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** What each import and re-export of a module's text names (static, side-effect and `import()`). */
export const importSpecs = (text) => [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]);
