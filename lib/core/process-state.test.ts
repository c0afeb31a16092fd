import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LAYER_STATE, layerState, layerStateName, type StateLayer } from "./process-state";

const root = path.resolve(import.meta.dirname, "../..");
const REGISTRY = "lib/core/process-state.ts";
/** Plain-Node modules that cannot import the registry and keep these globals themselves (named in its doc comment). */
const EXCEPTIONS: Record<string, string[]> = { "lib/auth/peer-stamp.mjs": ["__kbPeerKey", "__kbPeerStamped"] };

function files(p: string): string[] {
  const abs = path.join(root, p);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [p];
  return fs.readdirSync(abs).flatMap((e) => (e === "node_modules" ? [] : files(path.posix.join(p, e))));
}
const SOURCES = ["lib", "app", "pages", "components", "instrumentation.ts", "proxy.ts"]
  .flatMap(files)
  .filter((f) => /\.(ts|tsx|mjs|js)$/.test(f) && !/\.(test|spec)\.[tj]sx?$/.test(f) && !f.endsWith(".d.ts"));
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");
const g = globalThis as unknown as Record<string, unknown>;

describe("the process state registry", () => {
  it("is the only module that names a __kb global, but for the plain-Node exceptions", () => {
    expect(SOURCES).toContain(REGISTRY);
    const outside = SOURCES.filter((f) => f !== REGISTRY).flatMap((f) =>
      [...read(f).matchAll(/__kb[A-Za-z0-9_$]*/g)]
        .map((m) => m[0])
        .filter((name) => !EXCEPTIONS[f]?.includes(name))
        .map((name) => `${f}: ${name}`),
    );
    expect([...new Set(outside)]).toEqual([]);
  });

  it("names each exception in its doc comment, apart from the layers' globals", () => {
    const doc = read(REGISTRY).split("export const LAYER_STATE")[0];
    const names = Object.keys(LAYER_STATE).map((l) => layerStateName(l as StateLayer));
    for (const [file, globals] of Object.entries(EXCEPTIONS)) {
      expect(file.endsWith(".mjs")).toBe(true);
      expect(doc).toContain(file);
      for (const name of globals) {
        expect(read(file)).toContain(name);
        expect(doc).toContain(name);
        expect(names).not.toContain(name);
      }
    }
  });

  it("keeps values by layer only: no module looks a value up by a key of its own", () => {
    const byKey = /\b(?:processState|peekProcessState|setProcessState)\b/;
    expect(SOURCES.filter((f) => byKey.test(read(f)))).toEqual([]);
  });

  it("gives each layer a globalThis name of its own", () => {
    const names = Object.keys(LAYER_STATE).map((l) => layerStateName(l as StateLayer));
    expect(new Set(names).size).toBe(names.length);
    expect(layerStateName("db")).toBe("__kbDbState");
    expect(layerStateName("index-upkeep")).toBe("__kbIndexUpkeepState");
    expect(layerStateName("vector-store")).toBe("__kbVectorStoreState");
  });
});

describe("the layers' state modules", () => {
  const layerUse = /\blayerState(?:<[^\n]*?>)?\(\s*["']([\w-]+)["']/g;

  it("are the only modules that reach their layer's values, one module a layer", () => {
    const uses = SOURCES.filter((f) => f !== REGISTRY).flatMap((f) => [...read(f).matchAll(layerUse)].map((m) => `${m[1]}: ${f}`));
    expect([...new Set(uses)].sort()).toEqual(
      Object.entries(LAYER_STATE)
        .map(([layer, file]) => `${layer}: ${file}`)
        .sort(),
    );
  });

  it("sit in the layer they keep values for", () => {
    for (const [layer, file] of Object.entries(LAYER_STATE)) expect(file.startsWith(`lib/${layer}/`), file).toBe(true);
  });

  it("say of each value what it holds and why it outlives a request", () => {
    for (const [layer, file] of Object.entries(LAYER_STATE)) {
      // The interface named after the layer (IndexUpkeepState for index-upkeep), as its global is.
      const name = layerStateName(layer as StateLayer).replace(/^__kb/, "");
      const block = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(read(file))?.[1];
      expect(block, `${file} declares no interface ${name} of its values`).toBeDefined();
      // Each field is preceded by its doc comment.
      const undocumented = block!
        .split("\n")
        .filter((line, i, lines) => /^  \w+\??:/.test(line) && !/\*\/$/.test(lines[i - 1]?.trim() ?? ""));
      expect(undocumented, file).toEqual([]);
    }
  });
});

describe("layerState", () => {
  afterEach(() => {
    delete g[layerStateName("runtime")];
  });

  it("makes a layer's values once, kept on globalThis under the layer's name, so every copy of a module finds them", () => {
    let made = 0;
    const make = () => {
      made++;
      return { held: new Set<number>() };
    };
    const first = layerState("runtime", make);
    first.held.add(1);
    const second = layerState("runtime", make);
    expect(second).toBe(first);
    expect(made).toBe(1);
    expect(g.__kbRuntimeState).toBe(first);
    delete g.__kbRuntimeState; // as a new process would
    expect(layerState("runtime", make).held.size).toBe(0);
    expect(made).toBe(2);
  });
});
