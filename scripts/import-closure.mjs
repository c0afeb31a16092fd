#!/usr/bin/env node
// `node scripts/import-closure.mjs <entry>`: the source files a module loads, counted. Follows every
// static import, re-export and `import()` of the app's own files from the entry (type-only imports
// too, as scripts/layers.mjs does) and prints how many files that is, and how many per lib/ folder.
import fs from "node:fs";
import path from "node:path";
import { EXT, importSpecs, resolve, root } from "./imports.mjs";

const entry = process.argv[2];
if (!entry || !fs.existsSync(path.join(root, entry))) {
  console.error("usage: node scripts/import-closure.mjs <entry file, relative to the app's root>");
  process.exit(2);
}

const seen = new Set([path.normalize(entry)]);
const queue = [...seen];
while (queue.length) {
  const m = queue.pop();
  for (const spec of importSpecs(fs.readFileSync(path.join(root, m), "utf8"))) {
    const target = resolve(m, spec);
    if (target && EXT.includes(path.extname(target)) && !seen.has(target)) {
      seen.add(target);
      queue.push(target);
    }
  }
}

const perFolder = new Map();
for (const f of seen) {
  const parts = f.split(path.sep);
  const folder = parts[0] === "lib" && parts.length > 2 ? `lib/${parts[1]}` : parts.length > 1 ? parts[0] : "(root)";
  perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
}
console.log(`${entry}: ${seen.size} source files in its import closure`);
for (const [folder, n] of [...perFolder].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`  ${folder} ${n}`);
if (process.argv.includes("--list")) for (const f of [...seen].sort()) console.log(`    ${f}`);
