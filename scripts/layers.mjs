#!/usr/bin/env node
// `node scripts/layers.mjs [--check] [--root DIR]`: the code's layers read from its own imports.
// Prints the folders under lib/ and which import which, the cycles between folders and between
// modules, the imports against the order of levels docs/architecture.md declares (its numbered
// list under "## Layers"), the imports of `chromadb` outside lib/vector-store and of
// `better-sqlite3` outside lib/db, and the process-wide values (the layers' state modules, any
// `__kb*` global named outside lib/core/process-state.ts, and the modules that name globalThis or
// use it). With --check it exits 1 when there is any cycle, import against the order, folder missing from the order or
// driver import out of place. Tests (*.test.ts) are left out: a test may reach any layer.
import fs from "node:fs";
import path from "node:path";
import { files, importSpecs, isSource, resolve, root } from "./imports.mjs";

const SOURCES = ["lib", "app", "components", "pages", "proxy.ts", "instrumentation.ts"];
const OWNERS = { chromadb: "lib/vector-store", "better-sqlite3": "lib/db" };

/** A module's folder: its first two path segments under lib/ (lib/db), else its top folder. */
const folderOf = (f) =>
  f.startsWith(`lib${path.sep}`) && f.split(path.sep).length > 2 ? f.split(path.sep).slice(0, 2).join("/") : f.split(path.sep)[0];

const modules = SOURCES.flatMap(files).filter(isSource);
const edges = new Map(modules.map((m) => [m, new Set()]));
const owned = [];
const REGISTRY = path.join("lib", "core", "process-state.ts");
const LAYER_USE = /\blayerState(?:<[^\n]*?>)?\(\s*["']([\w-]+)["']/g;
const layerSlots = new Map();
const ownGlobals = new Map();
/** Modules that reach process-wide state at all: name globalThis or import the registry (the registry too). */
const touching = new Set();
for (const m of modules) {
  const text = fs.readFileSync(path.join(root, m), "utf8");
  for (const spec of importSpecs(text)) {
    const pkg = Object.keys(OWNERS).find((p) => spec === p || spec.startsWith(`${p}/`));
    if (pkg && !m.split(path.sep).join("/").startsWith(`${OWNERS[pkg]}/`)) owned.push(`${m}: imports ${pkg} (belongs in ${OWNERS[pkg]})`);
    const target = resolve(m, spec);
    if (target && edges.has(target) && target !== m) edges.get(m).add(target);
  }
  if (/globalThis|process-state/.test(text)) touching.add(m);
  if (m === REGISTRY) continue;
  for (const [, layer] of text.matchAll(LAYER_USE)) layerSlots.set(layer, [...(layerSlots.get(layer) ?? []), m]);
  for (const [name] of text.matchAll(/__kb[A-Za-z]+/g)) ownGlobals.set(name, [...(ownGlobals.get(name) ?? []), m]);
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph) {
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    stack = [],
    on = new Set(),
    out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const folders = new Map();
for (const [m, targets] of edges) {
  const from = folderOf(m);
  if (!from.startsWith("lib/")) continue;
  if (!folders.has(from)) folders.set(from, new Set());
  for (const t of targets) if (folderOf(t).startsWith("lib/") && folderOf(t) !== from) folders.get(from).add(folderOf(t));
}
const folderCycles = cycles(folders);

/**
 * The declared order: the numbered list under "## Layers" in docs/architecture.md, bottom first,
 * each item a level and its backticked names the folders (or top-level files) on it.
 */
function declaredLevels() {
  const file = path.join(root, "docs", "architecture.md");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const section = /^## Layers\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? "";
  const levels = new Map();
  for (const [, n, item] of section.matchAll(/^(\d+)\. (.+)$/gm)) {
    for (const [, name] of item.matchAll(/`([^`]+)`/g)) levels.set(name.replace(/\/$/, ""), Number(n));
  }
  return levels;
}
/** What the order places a module in: its folder under lib/ (lib/db), a file directly under lib/, else its top folder or file. */
const unitOf = (f) => {
  const parts = f.split(path.sep);
  return parts[0] === "lib" ? parts.slice(0, 2).join("/") : parts[0];
};
/** Imports against the order that another change in flight removes; each named exactly, module to module. */
// Imports against the order that are allowed by name, each with its reason (none today).
const ALLOWED = new Set([]);
const levels = declaredLevels();
const unplaced = new Set();
const against = [];
const allowed = [];
for (const [m, targets] of edges) {
  const from = unitOf(m);
  if (!levels.has(from)) unplaced.add(from);
  for (const t of targets) {
    const to = unitOf(t);
    if (to === from || !levels.has(from) || !levels.has(to) || levels.get(to) < levels.get(from)) continue;
    const edge = `${m.split(path.sep).join("/")} -> ${t.split(path.sep).join("/")}`;
    const line = `${edge} (${from}, level ${levels.get(from)}, imports ${to}, level ${levels.get(to)})`;
    (ALLOWED.has(edge) ? allowed : against).push(line);
  }
}
const moduleCycles = cycles(edges);
const importCount = [...edges.values()].reduce((n, s) => n + s.size, 0);

console.log(`${modules.length} modules (tests left out), ${importCount} imports between them; ${folders.size} folders under lib/`);
for (const [f, to] of [...folders].sort()) console.log(`  ${f} -> ${[...to].sort().join(", ") || "(nothing)"}`);
console.log(
  `\nfolder-level cycles under lib/: ${folderCycles.length}${folderCycles.length ? ` (folders in them: ${folderCycles.reduce((n, c) => n + c.length, 0)})` : ""}`,
);
for (const c of folderCycles) console.log(`  ${c.join(" <-> ")}`);
console.log(`module-level cycles: ${moduleCycles.length}`);
for (const c of moduleCycles) console.log(`  ${c.join(" <-> ")}`);
console.log(
  `declared order (docs/architecture.md, "## Layers"): ${new Set(levels.values()).size} levels; folders missing from it: ${unplaced.size}${unplaced.size ? ` (${[...unplaced].sort().join(", ")})` : ""}`,
);
console.log(`imports against the declared order: ${against.length}`);
for (const a of against) console.log(`  ${a}`);
for (const a of allowed) console.log(`  allowed for now: ${a}`);
for (const edge of ALLOWED)
  if (!allowed.some((a) => a.startsWith(`${edge} (`)))
    console.log(`  no longer imported, to be taken off ALLOWED in scripts/layers.mjs: ${edge}`);
console.log(`imports of chromadb or better-sqlite3 outside their folders: ${owned.length}`);
for (const o of owned) console.log(`  ${o}`);
const inModules = (m) => new Set([...m.values()].flat());
console.log(
  `process-wide values: ${layerSlots.size} layers' state modules; ` +
    `globals named outside ${REGISTRY}: ${ownGlobals.size}${ownGlobals.size ? ` (${[...inModules(ownGlobals)].join(", ")})` : ""}; ` +
    `modules that name globalThis or use it: ${touching.size}`,
);
for (const m of [...touching].sort()) console.log(`  ${m.split(path.sep).join("/")}`);

const orderBroken = levels.size === 0 || unplaced.size > 0 || against.length > 0;
if (process.argv.includes("--check") && (folderCycles.length || moduleCycles.length || owned.length || orderBroken)) process.exitCode = 1;
