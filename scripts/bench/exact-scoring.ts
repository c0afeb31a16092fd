// `node --expose-gc --conditions=react-server --import tsx scripts/bench/exact-scoring.ts [--sizes 1000,10000,50000,100000] [--agents 3] [--queries 50]`
//
// Measurement for exact retrieval: how far Chroma's filtered HNSW query is from the exact top 10,
// what an exact search over the agent's vectors held in this process costs, and how much re-scoring
// a deeper Chroma list recovers. One collection, made by the app's own code (name, HNSW settings,
// distance space), grows through the sizes; the agent under test holds N chunks at size N and each
// other agent min(N/2, OTHER_CAP), so the agent is filtered out of a shared graph as in the app.
// The corpus is adversarial: every chunk is the same support vocabulary, sampled, plus one unique
// word, so chunk vectors sit close together (cosine ~0.8 to each other); a query is a chunk's
// unique word and two vocabulary words, embedded as the app embeds queries (weighted by the agent's
// chunks). Figures on stdout, one `key: value` line each; progress on stderr. Chroma is private
// (free port, temporary directory) and is stopped and removed at the end, also on failure.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startChroma } from "../chroma-server.mjs";

const K = 10;
const DEPTHS = [20, 50, 100, 200];
const TEST_AGENT = 1;
// At --sizes up to 100000 the others hold N/2 each, 200,000 vectors in all at 100k (about
// 10 minutes of embedding and adds on 2 idle cores); above that they stop growing.
const OTHER_CAP = 50_000;
const CHUNKS_PER_DOC = 10;
const ADD_BATCH = 1000; // the app's adds carry up to 1,000 vectors
const WORDS_PER_CHUNK = 100; // about 750 characters, the app's 800-character chunks
// Distances this close are a tie: Chroma computes in float32, this script in float64.
const TIE = 1e-6;
const VOCAB = (
  "account password reset login error update install router printer network wifi billing invoice refund order " +
  "shipping delivery return warranty battery charger screen device app email message support ticket customer " +
  "service setting profile subscription plan payment card bank connection server backup sync file folder upload " +
  "download browser cache cookie security code verification phone tablet laptop firmware bluetooth speaker cable " +
  "port adapter light button"
).split(" ");

const log = (msg: string) => console.error(`[exact] ${msg}`);
const out = (key: string, value: number | string) => console.log(`${key}: ${typeof value === "number" ? Number(value.toFixed(value < 1 ? 4 : 1)) : value}`);
const gc = (globalThis as { gc?: () => void }).gc;
const MB = 1024 * 1024;
/** Heap and ArrayBuffer bytes after a full gc (a Float32Array's bytes live outside the JS heap). */
function heapBytes(): number {
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil(p * xs.length) - 1];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function fail(msg: string): never {
  console.error(`exact-scoring bench: ${msg}`);
  process.exit(2);
}
function parseArgs(argv: string[]) {
  const a = { sizes: [1000, 10_000, 50_000, 100_000], agents: 3, queries: 50 };
  for (let i = 0; i < argv.length; i++) {
    const [key, inline] = argv[i].includes("=") ? argv[i].split(/=(.*)/s) : [argv[i]];
    const value = () => inline ?? argv[++i] ?? "";
    if (key === "--sizes") a.sizes = value().split(",").map(Number).sort((x, y) => x - y);
    else if (key === "--agents") a.agents = Number(value());
    else if (key === "--queries") a.queries = Number(value());
    else fail(`unknown argument ${key}; usage: [--sizes 1000,10000] [--agents 3] [--queries 50]`);
  }
  if (!a.sizes.length || a.sizes.some((n) => !Number.isInteger(n) || n < 100)) fail("--sizes needs whole numbers of at least 100");
  if (!Number.isInteger(a.agents) || a.agents < 1) fail("--agents needs a whole number of at least 1");
  if (!Number.isInteger(a.queries) || a.queries < 1) fail("--queries needs a whole number of at least 1");
  return a;
}

function mulberry32(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20240611);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];

/** A word no other chunk has: 8 random letters, no tie to the vocabulary. */
const usedTokens = new Set<string>();
function uniqueToken(): string {
  for (;;) {
    const t = Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join("");
    if (!usedTokens.has(t)) return usedTokens.add(t), t;
  }
}
function chunkText(token: string): string {
  const words = Array.from({ length: WORDS_PER_CHUNK }, () => pick(VOCAB));
  words.splice(Math.floor(rand() * words.length), 0, token);
  return words.join(" ");
}

/** An agent's vectors in this process: one Float32Array, row i is ids[i]; squared norms for the distance. */
interface ExactIndex { ids: string[]; data: Float32Array; sq: Float64Array; dim: number }
interface Hit { id: string; d: number }

function indexOf(ids: string[], rows: ArrayLike<number>[], dim: number): ExactIndex {
  const data = new Float32Array(ids.length * dim);
  rows.forEach((r, i) => data.set(r, i * dim));
  return withNorms({ ids, data, sq: new Float64Array(ids.length), dim });
}
function withNorms(x: ExactIndex): ExactIndex {
  for (let i = 0; i < x.ids.length; i++) x.sq[i] = dotRow(x.data, i * x.dim, x.data, i * x.dim, x.dim);
  return x;
}
function dotRow(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0; // four sums: the loop is bound by the add latency
  for (let k = 0; k < dim; k += 4) {
    s0 += a[ao + k] * b[bo + k];
    s1 += a[ao + k + 1] * b[bo + k + 1];
    s2 += a[ao + k + 2] * b[bo + k + 2];
    s3 += a[ao + k + 3] * b[bo + k + 3];
  }
  return s0 + s1 + s2 + s3;
}

/** Row i's distance to q in Chroma's space (qq: q's squared norm), as Chroma defines it for cosine, ip and l2. */
function distance(x: ExactIndex, q: Float32Array, qq: number, i: number, space: string): number {
  const dot = dotRow(q, 0, x.data, i * x.dim, x.dim);
  return space === "cosine" ? 1 - dot / Math.sqrt(qq * x.sq[i]) : space === "ip" ? 1 - dot : qq + x.sq[i] - 2 * dot;
}

/** The exact k nearest rows to q, by partial selection: one pass keeping a sorted top k. */
function exactTopK(x: ExactIndex, q: Float32Array, k: number, space: string): Hit[] {
  const qq = dotRow(q, 0, q, 0, x.dim);
  const bestD = new Float64Array(k).fill(Infinity);
  const bestI = new Int32Array(k).fill(-1);
  for (let i = 0; i < x.ids.length; i++) {
    const d = distance(x, q, qq, i, space);
    if (!(d < bestD[k - 1])) continue;
    let j = k - 1;
    for (; j > 0 && bestD[j - 1] > d; j--) (bestD[j] = bestD[j - 1]), (bestI[j] = bestI[j - 1]);
    (bestD[j] = d), (bestI[j] = i);
  }
  return [...bestI].filter((i) => i >= 0).map((i, j) => ({ id: x.ids[i], d: bestD[j] }));
}

/**
 * Recall@10 with ties counted as hits: a returned chunk as near as the exact 10th (within TIE) is
 * as good as it, and which of tied chunks either side keeps is float noise, not an index miss.
 */
function recallAt10(got: string[], exact: Hit[], exactOf: (id: string) => number): number {
  const edge = exact[exact.length - 1].d + TIE;
  return Math.min(K, got.slice(0, K).filter((id) => exactOf(id) <= edge).length) / K;
}
const missesRank1 = (got: string[], exact: Hit[], exactOf: (id: string) => number) => !got.slice(0, K).some((id) => exactOf(id) <= exact[0].d + TIE);

async function main(tmp: string, setStop: (stop: () => Promise<void>) => void) {
  const args = parseArgs(process.argv.slice(2));
  const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false, log });
  setStop(chroma.stop);
  Object.assign(process.env, { DATA_DIR: path.join(tmp, "data"), CHROMA_URL: chroma.url, CHROMA_COLLECTION_PREFIX: "bench", EMBEDDING_PROVIDER: "local", KB_DEMO: "0" });
  // Imported only now: lib/ reads the environment on first use.
  const { collectionFor, live, queryDistances, addRecordsNow, chunkId, DISTANCE_SPACE, HNSW } = await import("../../lib/vector-store/client");
  const { LocalEmbedder, newFeatureCounts } = await import("../../lib/embeddings/index");
  const space: string = DISTANCE_SPACE;
  const embedder = new LocalEmbedder({ log });
  await embedder.ready();
  const collection = await collectionFor(embedder);
  const where = { agent_id: TEST_AGENT };
  out("model", embedder.model);
  out("collection", `${collection.name} (${space}, ${JSON.stringify(HNSW)})`);
  out("agents", `${args.agents} (agent under test: N chunks; each other: min(N/2, ${OTHER_CAP}))`);
  out("queries", args.queries);

  // The corpus grows size by size; the agent under test's unique words make its queries, its counts weight them.
  const have = new Map<number, number>();
  const testTokens: string[] = [];
  const df = newFeatureCounts();
  let nextDoc = 1;

  async function grow(n: number) {
    const docs: { agent: number; chunks: number }[] = [];
    for (let agent = 1; agent <= args.agents; agent++) {
      const want = agent === TEST_AGENT ? n : Math.min(Math.floor(n / 2), OTHER_CAP);
      for (let left = want - (have.get(agent) ?? 0); left > 0; left -= CHUNKS_PER_DOC) docs.push({ agent, chunks: Math.min(CHUNKS_PER_DOC, left) });
      have.set(agent, Math.max(want, have.get(agent) ?? 0));
    }
    for (let i = docs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1)); // mixed uploads: the agents' documents arrive shuffled
      [docs[i], docs[j]] = [docs[j], docs[i]];
    }
    const total = docs.reduce((s, d) => s + d.chunks, 0);
    let added = 0, embedMs = 0, addMs = 0, lastLog = performance.now();
    for (let d = 0; d < docs.length; ) {
      const batch: { id: string; text: string; agent: number; doc: number; index: number }[] = [];
      for (; d < docs.length && batch.length < ADD_BATCH; d++, nextDoc++) {
        for (let c = 0; c < docs[d].chunks; c++) {
          const token = uniqueToken();
          if (docs[d].agent === TEST_AGENT) testTokens.push(token);
          batch.push({ id: chunkId(nextDoc, c), text: chunkText(token), agent: docs[d].agent, doc: nextDoc, index: c });
        }
      }
      const t0 = performance.now();
      const embeddings = await embedder.embed(batch.map((b) => b.text));
      await embedder.countFeatures(batch.filter((b) => b.agent === TEST_AGENT).map((b) => b.text), df);
      const t1 = performance.now();
      await addRecordsNow(collection, { ids: batch.map((b) => b.id), embeddings, metadatas: batch.map((b) => ({ agent_id: b.agent, document_id: b.doc, chunk_index: b.index })) });
      embedMs += t1 - t0;
      addMs += performance.now() - t1;
      added += batch.length;
      if (performance.now() - lastLog > 5000 || added === total) {
        log(`size ${n}: added ${added}/${total} (embed ${(embedMs / 1000).toFixed(1)} s, add ${(addMs / 1000).toFixed(1)} s)`);
        lastLog = performance.now();
      }
    }
    return { total, embedMs, addMs };
  }

  /** The agent's vectors read once from Chroma, page by page, into one Float32Array. */
  async function loadExact(n: number): Promise<ExactIndex> {
    const page = 2000;
    const x: ExactIndex = { ids: [], data: new Float32Array(n * embedder.dimension), sq: new Float64Array(n), dim: embedder.dimension };
    for (let offset = 0; ; offset += page) {
      const res = await live(collection).get({ where, include: ["embeddings"], limit: page, offset });
      res.embeddings.forEach((e, i) => x.data.set(e, (offset + i) * x.dim));
      x.ids.push(...res.ids);
      if (res.ids.length < page) break;
    }
    if (x.ids.length !== n) throw new Error(`Chroma returned ${x.ids.length} vectors of agent ${TEST_AGENT}, not ${n}`);
    return withNorms(x);
  }

  for (const n of args.sizes) {
    log(`size ${n}: growing the collection`);
    const g = await grow(n);
    out(`collection_vectors_${n}`, [...have.values()].reduce((a, b) => a + b, 0));
    out(`embed_chunks_per_s_${n}`, Math.round(g.total / (g.embedMs / 1000)));
    out(`chroma_add_per_s_${n}`, Math.round(g.total / (g.addMs / 1000)));

    const texts = Array.from({ length: args.queries }, () => `${pick(testTokens)} ${pick(VOCAB)} ${pick(VOCAB)}`);
    const queries = await embedder.embedQueries(texts, { chunks: n, df });
    await queryDistances(collection, { queryEmbeddings: [queries[0]], nResults: K, where }); // warm-up: Chroma loads the segment

    const before = heapBytes();
    const t0 = performance.now();
    let index: ExactIndex | null = await loadExact(n);
    out(`exact_load_s_${n}`, (performance.now() - t0) / 1000);
    out(`exact_memory_mb_${n}`, index.data.byteLength / MB);
    out(`exact_heap_growth_mb_${n}`, (heapBytes() - before) / MB);
    const rowOf = new Map(index.ids.map((id, i) => [id, i]));

    const m = { chroma: [] as number[], exact: [] as number[], recall: [] as number[], miss: 0, ties: 0, diff: 0 };
    const rescore = new Map(DEPTHS.map((d) => [d, { ms: [] as number[], recall: [] as number[] }]));
    for (const [qi, qv] of queries.entries()) {
      const q = Float32Array.from(qv); // Chroma takes the query as float32 too
      let t = performance.now();
      const ann = await queryDistances(collection, { queryEmbeddings: [qv], nResults: K, where });
      m.chroma.push(performance.now() - t);
      t = performance.now();
      const exact = exactTopK(index, q, K, space);
      m.exact.push(performance.now() - t);

      // The exact distance of every id Chroma returns below: for recall with ties, and the distance check.
      const deepest = await queryDistances(collection, { queryEmbeddings: [qv], nResults: Math.max(...DEPTHS), where });
      const qq = dotRow(q, 0, q, 0, q.length);
      const exactOf = (id: string) => distance(index!, q, qq, rowOf.get(id)!, space);
      const next = exactTopK(index, q, K + 1, space)[K];
      if (next && next.d - exact[K - 1].d <= TIE) m.ties++;
      m.recall.push(recallAt10(ann.ids[0], exact, exactOf));
      if (missesRank1(ann.ids[0], exact, exactOf)) m.miss++;
      for (const [i, id] of deepest.ids[0].entries()) m.diff = Math.max(m.diff, Math.abs((deepest.distances[0][i] ?? NaN) - exactOf(id)));

      // Re-scoring without the vectors in memory: Chroma's top d with their vectors, ranked exactly here.
      for (const d of DEPTHS) {
        t = performance.now();
        const res = await live(collection).query({ queryEmbeddings: [qv], nResults: d, where, include: ["embeddings"] });
        const best = exactTopK(indexOf(res.ids[0], res.embeddings[0] as number[][], index.dim), q, K, space);
        rescore.get(d)!.ms.push(performance.now() - t);
        rescore.get(d)!.recall.push(recallAt10(best.map((h) => h.id), exact, exactOf));
      }
      if ((qi + 1) % 10 === 0) log(`size ${n}: ${qi + 1}/${queries.length} queries`);
    }
    out(`chroma_filtered_query_p50_ms_${n}`, pct(m.chroma, 0.5));
    out(`chroma_filtered_query_p95_ms_${n}`, pct(m.chroma, 0.95));
    out(`exact_search_p50_ms_${n}`, pct(m.exact, 0.5));
    out(`exact_search_p95_ms_${n}`, pct(m.exact, 0.95));
    out(`ann_recall_at_10_${n}`, mean(m.recall));
    out(`ann_miss_rank1_${n}`, m.miss / queries.length);
    out(`exact_ties_at_10th_${n}`, m.ties); // queries whose 10th and 11th exact distances tie
    out(`chroma_distance_max_abs_diff_${n}`, m.diff.toExponential(1)); // Chroma's distances against this script's
    for (const [d, r] of rescore) {
      out(`rescore_recall_at_10_${n}_depth_${d}`, mean(r.recall));
      out(`rescore_p50_ms_${n}_depth_${d}`, pct(r.ms, 0.5));
    }
    index = null; // the next size loads its own
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-exact-"));
let stopChroma: (() => Promise<void>) | null = null;
let cleaning: Promise<void> | null = null;
const cleanup = () =>
  (cleaning ??= (async () => {
    await stopChroma?.().catch((e: unknown) => log(`stopping Chroma: ${e instanceof Error ? e.message : String(e)}`));
    fs.rmSync(tmp, { recursive: true, force: true });
  })());
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void cleanup().finally(() => process.exit(130)));
if (!gc) console.log("# run with --expose-gc for steady memory figures");

main(tmp, (stop) => (stopChroma = stop))
  .catch((err) => {
    console.error(`exact-scoring bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  })
  .finally(cleanup);
