import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROCESS_STATE, peekProcessState, processState, processStateName, setProcessState, type ProcessStateKey } from "./process-state";

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
      [...read(f).matchAll(/__kb[A-Za-z0-9_$]*/g)].map((m) => m[0]).filter((name) => !EXCEPTIONS[f]?.includes(name)).map((name) => `${f}: ${name}`),
    );
    expect([...new Set(outside)]).toEqual([]);
  });

  it("names each exception in its doc comment, apart from its own keys", () => {
    const doc = read(REGISTRY).split("export const PROCESS_STATE")[0];
    const names = Object.keys(PROCESS_STATE).map((k) => processStateName(k as ProcessStateKey));
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

  it("has no key that no module uses", () => {
    const use = /\b(?:processState|peekProcessState|setProcessState)(?:<[^\n]*?>)?\(\s*["'](\w+)["']/g;
    const used = new Set(SOURCES.filter((f) => f !== REGISTRY).flatMap((f) => [...read(f).matchAll(use)].map((m) => m[1])));
    expect(Object.keys(PROCESS_STATE).filter((k) => !used.has(k))).toEqual([]);
  });

  it("says of each key what it holds, who writes it and why it outlives a request", () => {
    const unsaid = Object.entries(PROCESS_STATE).filter(([, doc]) => !/^\S.*\. Written by \S.*\. Outlives a request because \S.*\.$/.test(doc));
    expect(unsaid.map(([k]) => k)).toEqual([]);
  });

  it("gives each key a globalThis name of its own", () => {
    const names = Object.keys(PROCESS_STATE).map((k) => processStateName(k as ProcessStateKey));
    expect(new Set(names).size).toBe(names.length);
    expect(processStateName("recheck")).toBe("__kbRecheck");
    expect(processStateName("db")).toBe("__kbDb");
    expect(processStateName("oneAtATime")).toBe("__kbOneAtATime");
    expect(processStateName("toolCallsPrunedAt")).toBe("__kbToolCallsPrunedAt");
  });
});

describe("processState", () => {
  afterEach(() => {
    delete g.__kbKeyedLocks;
    delete g.__kbAlternative;
    delete g.__kbRebuildStep;
  });

  it("makes the value on first use and returns the same one after, from globalThis", () => {
    let made = 0;
    const make = () => {
      made++;
      return new Map<string, Promise<void>>();
    };
    const first = processState("keyedLocks", make);
    const second = processState("keyedLocks", make);
    expect(second).toBe(first);
    expect(made).toBe(1);
    expect(g.__kbKeyedLocks).toBe(first);
    expect(peekProcessState("keyedLocks")).toBe(first);
  });

  it("keeps null as a value, and makes the value again once it is cleared", () => {
    expect(peekProcessState("alternative")).toBeUndefined();
    expect(processState("alternative", () => null)).toBeNull();
    expect(processState("alternative", () => "again")).toBeNull();
    setProcessState("alternative", undefined);
    expect(peekProcessState("alternative")).toBeUndefined();
    expect(processState("alternative", () => "again")).toBe("again");
  });

  it("sees a value a test assigned to the global itself", () => {
    const step = async () => {};
    g.__kbRebuildStep = step;
    expect(peekProcessState("rebuildStep")).toBe(step);
    expect(setProcessState("rebuildStep", undefined)).toBeUndefined();
    expect(g.__kbRebuildStep).toBeUndefined();
  });
});
