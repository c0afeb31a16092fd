// `node --expose-gc --conditions=react-server --import tsx scripts/bench/exact-scoring.ts [--sizes 1000,10000,50000,100000] [--agents 3] [--queries 50]`
//
// For exact retrieval: how far Chroma's filtered HNSW query is from the exact top 10, what an exact
// search over the agent's vectors held in this process costs, and how much re-scoring a deeper
// Chroma list recovers. One collection, made by the app's own code (name, HNSW settings, distance
// space), grows through the sizes: the agent under test holds N chunks at size N, each other agent
// min(N/2, OTHER_CAP), so the agent is filtered out of a shared graph as in the app. The corpus is
// adversarial: every chunk is ~100 words sampled from one support vocabulary plus one unique word,
// embedded by the app's local embedder, so chunk vectors sit close together (cosine ~0.8); a query
// is a chunk's unique word and two vocabulary words, weighted by the agent's chunks as the app does.
// Figures on stdout, one `key: value` line each; progress on stderr. Chroma runs on a free port in
// a temporary directory, stopped and removed at the end, also on failure.
//
// `--table [--rows 333000] [--dim 1024]` measures a compact table instead, without Chroma: building
// it from random unit rows made in memory (quantized in JavaScript as before, and by the kernel),
// then scoring a batch of 32 queries against it one query at a time and four at a time (as an
// evaluation's batch is scored), then saving it to a file in the temporary directory and reading it back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startChroma } from "../chroma-server.mjs";

const K = 10;
const DEPTHS = [20, 50, 100, 200];
const TEST_AGENT = 1;
// The others hold N/2 each up to 100k, then stop growing: 200,000 vectors at 100k, estimated at
// 8-10 minutes on 2 cores from the 10k run (embedding ~4,000 chunks/s, adds 660-800/s and falling).
const OTHER_CAP = 50_000;
const CHUNKS_PER_DOC = 10;
const ADD_BATCH = 1000; // the app's adds carry up to 1,000 vectors
const WORDS_PER_CHUNK = 100; // about 750 characters, near the app's 800-character chunks
// Distances this close are a tie: Chroma computes in float32, this script in float64.
const TIE = 1e-6;
const VOCAB = (
  "account password reset login error update install router printer network wifi billing invoice refund order shipping delivery " +
  "return warranty battery charger screen device app email message support ticket customer service setting profile subscription plan payment " +
  "card bank connection server backup sync file folder upload download browser cache cookie security code verification phone tablet laptop " +
  "firmware bluetooth speaker cable port adapter light button"
).split(" ");

const log = (msg: string) => console.error(`[exact] ${msg}`);
const out = (key: string, v: number | string) => console.log(`${key}: ${typeof v === "number" ? Number(v.toFixed(v < 1 ? 4 : 1)) : v}`);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil(p * xs.length) - 1];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
const gc = (globalThis as { gc?: () => void }).gc;
const MB = 1024 * 1024;
/**
 * Heap and ArrayBuffer bytes once garbage is gone (a Float32Array's bytes live outside the JS heap):
 * several collections with pauses, since freed buffers and fetch bodies are released after a gc.
 */
async function heapBytes(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
const timed = async <T>(into: number[], f: () => T | Promise<T>, t = performance.now()): Promise<T> => {
  const r = await f();
  return (into.push(performance.now() - t), r);
};

function parseArgs(argv: string[]) {
  const a = { sizes: [1000, 10_000, 50_000, 100_000], agents: 3, queries: 50, table: false, rows: 333_000, dim: 1024 };
  for (let i = 0; i < argv.length; i++) {
    const [key, inline] = argv[i].includes("=") ? argv[i].split(/=(.*)/s) : [argv[i]];
    const value = () => inline ?? argv[++i] ?? "";
    if (key === "--table") a.table = true;
    else if (key === "--rows") a.rows = Number(value());
    else if (key === "--dim") a.dim = Number(value());
    else if (key === "--sizes")
      a.sizes = value()
        .split(",")
        .map(Number)
        .sort((x, y) => x - y);
    else if (key === "--agents") a.agents = Number(value());
    else if (key === "--queries") a.queries = Number(value());
    else fail(`unknown argument ${key}; usage: [--sizes 1000,10000] [--agents 3] [--queries 50] | --table [--rows 333000] [--dim 1024]`);
  }
  if (!a.sizes.length || a.sizes.some((n) => !Number.isInteger(n) || n < 100)) fail("--sizes needs whole numbers of at least 100");
  for (const k of ["agents", "queries", "rows", "dim"] as const)
    if (!Number.isInteger(a[k]) || a[k] < 1) fail(`--${k} needs a whole number of at least 1`);
  return a;
}
const fail = (msg: string): never => (console.error(`exact-scoring bench: ${msg}`), process.exit(2));

let seed = 20240611; // mulberry32, as the other benches: the same corpus and queries on every run
function rand(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
const usedTokens = new Set<string>();
/** A chunk's own word: 8 random letters, unlike any vocabulary word and any other chunk's. */
function chunkText(): { token: string; text: string } {
  let token = "";
  while (!token || usedTokens.has(token))
    token = Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join("");
  usedTokens.add(token);
  const words = Array.from({ length: WORDS_PER_CHUNK }, () => pick(VOCAB));
  words.splice(Math.floor(rand() * words.length), 0, token);
  return { token, text: words.join(" ") };
}

/** Vectors held in this process: row i of `data` is ids[i]; `sq` its squared norm. */
interface ExactIndex {
  ids: string[];
  data: Float32Array;
  sq: Float64Array;
  dim: number;
}
interface Hit {
  id: string;
  d: number;
}

function exactIndex(ids: string[], data: Float32Array, dim: number): ExactIndex {
  const x = { ids, data, sq: new Float64Array(ids.length), dim };
  for (let i = 0; i < ids.length; i++) x.sq[i] = dotRow(data, i * dim, data, i * dim, dim);
  return x;
}
function dotRow(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0; // four sums: one alone waits on each add's latency
  for (let k = 0; k < dim; k += 4) {
    s0 += a[ao + k] * b[bo + k];
    s1 += a[ao + k + 1] * b[bo + k + 1];
    s2 += a[ao + k + 2] * b[bo + k + 2];
    s3 += a[ao + k + 3] * b[bo + k + 3];
  }
  return s0 + s1 + s2 + s3;
}
/** Row i's distance to q (qq: q's squared norm) as Chroma defines it in each space. */
function distance(x: ExactIndex, q: Float32Array, qq: number, i: number, space: string): number {
  const dot = dotRow(q, 0, x.data, i * x.dim, x.dim);
  return space === "cosine" ? 1 - dot / Math.sqrt(qq * x.sq[i]) : space === "ip" ? 1 - dot : qq + x.sq[i] - 2 * dot;
}
/** The exact k nearest rows by partial selection: one pass, keeping a sorted top k. */
function exactTopK(x: ExactIndex, q: Float32Array, k: number, space: string): Hit[] {
  const qq = dotRow(q, 0, q, 0, x.dim);
  const bestD = new Float64Array(k).fill(Infinity);
  const bestI = new Int32Array(k).fill(-1);
  for (let i = 0; i < x.ids.length; i++) {
    const d = distance(x, q, qq, i, space);
    if (!(d < bestD[k - 1])) continue;
    let j = k - 1;
    for (; j > 0 && bestD[j - 1] > d; j--) {
      bestD[j] = bestD[j - 1];
      bestI[j] = bestI[j - 1];
    }
    bestD[j] = d;
    bestI[j] = i;
  }
  return [...bestI].filter((i) => i >= 0).map((i, j) => ({ id: x.ids[i], d: bestD[j] }));
}

/**
 * Recall@10 counting ties as hits: a returned chunk as near as the exact 10th (within TIE) is as
 * good as it; which of tied chunks either side keeps is float rounding, not an index miss.
 */
const recallAt10 = (got: string[], exact: Hit[], exactOf: (id: string) => number) =>
  Math.min(K, got.slice(0, K).filter((id) => exactOf(id) <= exact[K - 1].d + TIE).length) / K;
const missesRank1 = (got: string[], exact: Hit[], exactOf: (id: string) => number) =>
  !got.slice(0, K).some((id) => exactOf(id) <= exact[0].d + TIE);

type VectorStore = typeof import("../../lib/vector-store/client");
type Embeddings = typeof import("../../lib/embeddings/index");
/** What the steps share: the app's modules, its collection and embedder, and the corpus so far. */
interface Bench {
  vs: VectorStore;
  collection: Awaited<ReturnType<VectorStore["collectionFor"]>>;
  embedder: InstanceType<Embeddings["LocalEmbedder"]>;
  space: string;
  agents: number;
  have: Map<number, number>; // chunks per agent
  testTokens: string[]; // the agent under test's own words, for its queries
  df: ReturnType<Embeddings["newFeatureCounts"]>; // its feature counts, which weight its queries
  nextDoc: number;
}
const where = { agent_id: TEST_AGENT };
/** The app's search call: Chroma's REST query, agent filter, ids and distances. */
const query = (b: Bench, v: number[], nResults: number) => b.vs.queryDistances(b.collection, { queryEmbeddings: [v], nResults, where });

/** Adds whole documents of 10 chunks until each agent has its share of size n (rounded up to tens). */
async function grow(b: Bench, n: number) {
  const docs: number[] = []; // one agent id per document, shuffled as mixed uploads arrive
  for (let agent = 1; agent <= b.agents; agent++) {
    let c = b.have.get(agent) ?? 0;
    for (const want = agent === TEST_AGENT ? n : Math.min(Math.floor(n / 2), OTHER_CAP); c < want; c += CHUNKS_PER_DOC)
      docs.splice(Math.floor(rand() * (docs.length + 1)), 0, agent);
    b.have.set(agent, c);
  }
  const total = docs.length * CHUNKS_PER_DOC;
  const took = { embed: [] as number[], add: [] as number[], added: 0, logged: performance.now() };
  for (let d = 0; d < docs.length; d += ADD_BATCH / CHUNKS_PER_DOC) {
    const batch = docs.slice(d, d + ADD_BATCH / CHUNKS_PER_DOC).flatMap((agent) => {
      const doc = b.nextDoc++;
      return Array.from({ length: CHUNKS_PER_DOC }, (_, c) => ({
        id: b.vs.chunkId(doc, c),
        ...chunkText(),
        metadata: { agent_id: agent, document_id: doc, chunk_index: c },
      }));
    });
    const mine = batch.filter((x) => x.metadata.agent_id === TEST_AGENT);
    b.testTokens.push(...mine.map((x) => x.token));
    const embeddings = await timed(took.embed, () => b.embedder.embed(batch.map((x) => x.text)));
    await b.embedder.countFeatures(
      mine.map((x) => x.text),
      b.df,
    );
    await timed(took.add, () =>
      b.vs.writeRecords(b.collection, { ids: batch.map((x) => x.id), embeddings, metadatas: batch.map((x) => x.metadata) }, "add"),
    );
    took.added += batch.length;
    if (performance.now() - took.logged > 5000 || took.added === total) {
      log(
        `size ${n}: added ${took.added}/${total} (embedding ${(sum(took.embed) / 1000).toFixed(1)} s, Chroma adds ${(sum(took.add) / 1000).toFixed(1)} s)`,
      );
      took.logged = performance.now();
    }
  }
  out(`collection_vectors_${n}`, sum([...b.have.values()]));
  out(`embed_chunks_per_s_${n}`, Math.round(total / (sum(took.embed) / 1000)));
  out(`chroma_add_per_s_${n}`, Math.round(total / (sum(took.add) / 1000)));
}

/** The agent's vectors read once from Chroma (collection.get, by pages) into one Float32Array. */
async function loadExact(b: Bench): Promise<ExactIndex> {
  const page = 2000;
  const dim = b.embedder.dimension;
  const ids: string[] = [];
  const data = new Float32Array(b.have.get(TEST_AGENT)! * dim);
  for (let offset = 0; ; offset += page) {
    const res = await b.vs.live(b.collection).get({ where, include: ["embeddings"], limit: page, offset });
    res.embeddings.forEach((e, i) => data.set(e, (offset + i) * dim));
    ids.push(...res.ids);
    if (res.ids.length < page) break;
  }
  if (ids.length * dim !== data.length)
    throw new Error(`Chroma returned ${ids.length} vectors of agent ${TEST_AGENT}, not ${b.have.get(TEST_AGENT)}`);
  return exactIndex(ids, data, dim);
}

const newFigures = () => ({
  chroma: [] as number[],
  chromaDeep: [] as number[],
  exact: [] as number[],
  recall: [] as number[],
  d1: [] as number[],
  d10: [] as number[],
  miss: 0,
  ties: 0,
  diff: 0,
  rescore: new Map(DEPTHS.map((d) => [d, { ms: [] as number[], recall: [] as number[] }])),
});

/** One query: Chroma's top 10 against the exact one, Chroma's deepest list, and each re-scoring depth. */
async function measureQuery(b: Bench, index: ExactIndex, rowOf: Map<string, number>, qv: number[], m: ReturnType<typeof newFigures>) {
  const q = Float32Array.from(qv); // Chroma rounds the query to float32 too
  const qq = dotRow(q, 0, q, 0, q.length);
  const exactOf = (id: string) => distance(index, q, qq, rowOf.get(id)!, b.space);
  const ann = await timed(m.chroma, () => query(b, qv, K));
  const exact = await timed(m.exact, () => exactTopK(index, q, K, b.space));
  m.recall.push(recallAt10(ann.ids[0], exact, exactOf));
  if (missesRank1(ann.ids[0], exact, exactOf)) m.miss++;
  m.d1.push(exact[0].d);
  m.d10.push(exact[K - 1].d);
  if (exactTopK(index, q, K + 1, b.space)[K].d - exact[K - 1].d <= TIE) m.ties++;
  // Chroma's deepest list, ids and distances only: its cost, and its distances against ours.
  const deep = await timed(m.chromaDeep, () => query(b, qv, DEPTHS.at(-1)!));
  deep.ids[0].forEach((id, i) => (m.diff = Math.max(m.diff, Math.abs((deep.distances[0][i] ?? NaN) - exactOf(id)))));
  // Re-scoring without the vectors in memory: Chroma's top d with their vectors, ranked exactly here.
  for (const [d, r] of m.rescore) {
    const best = await timed(r.ms, async () => {
      const res = await b.vs.live(b.collection).query({ queryEmbeddings: [qv], nResults: d, where, include: ["embeddings"] });
      return exactTopK(exactIndex(res.ids[0], Float32Array.from((res.embeddings[0] as number[][]).flat()), index.dim), q, K, b.space);
    });
    r.recall.push(
      recallAt10(
        best.map((h) => h.id),
        exact,
        exactOf,
      ),
    );
  }
}

/**
 * The app's own exact ranking (lib/retrieval/exact.ts, the WebAssembly kernel): its table built
 * from the agent's vectors, one query at a time as a search asks, and 32 at a time as a recall
 * run's batch does; its top 10 checked against this script's float64 one.
 */
async function measureApp(b: Bench, n: number, index: ExactIndex, queries: number[][]) {
  const { VectorTable } = await import("../../lib/retrieval/exact-kernel");
  const { exactNearest } = await import("../../lib/retrieval/exact");
  const t0 = performance.now();
  const table = new VectorTable(index.dim, index.ids.length);
  for (let i = 0; i < index.ids.length;) {
    const key = parseId(index.ids[i]);
    let run = 1;
    while (
      i + run < index.ids.length &&
      parseId(index.ids[i + run]).document_id === key.document_id &&
      parseId(index.ids[i + run]).chunk_index === key.chunk_index + run
    )
      run++;
    table.append(key.document_id, key.chunk_index, run, index.data.subarray(i * index.dim, (i + run) * index.dim));
    i += run;
  }
  out(`app_exact_table_build_ms_${n}`, performance.now() - t0);
  out(`app_exact_table_mb_${n}`, table.bytes / MB);
  const agent = {
    signature: "",
    table,
    documents: [],
    chunkCounts: [],
    chunks: index.ids.length,
    dimension: index.dim,
    bytes: table.bytes,
    usedAt: 0,
  };
  const one: number[] = [];
  let same = 0;
  for (const qv of queries) {
    const [hits] = await timed(one, () => exactNearest(agent, b.embedder.model, [qv], K));
    const q = Float32Array.from(qv);
    const truth = exactTopK(index, q, K, b.space);
    const qq = dotRow(q, 0, q, 0, q.length);
    const rowOf = (id: string) => index.ids.indexOf(id);
    same += recallAt10(
      hits.map((h) => `doc${h.document_id}#${h.chunk_index}`),
      truth,
      (id) => distance(index, q, qq, rowOf(id), b.space),
    );
  }
  for (const p of [50, 95]) out(`app_exact_search_p${p}_ms_${n}`, pct(one, p / 100));
  out(`app_exact_recall_at_10_${n}`, same / queries.length);
  const batch: number[] = [];
  for (let i = 0; i + 32 <= queries.length || (i === 0 && queries.length > 0); i += 32) {
    const group = queries.slice(i, i + 32);
    await timed(batch, () => exactNearest(agent, b.embedder.model, group, K));
    batch[batch.length - 1] /= group.length;
  }
  out(`app_exact_ms_per_query_in_32_${n}`, pct(batch, 0.5));
}
const parseId = (id: string) => {
  const m = /^doc(\d+)#(\d+)$/.exec(id)!;
  return { document_id: Number(m[1]), chunk_index: Number(m[2]) };
};

async function measureSize(b: Bench, n: number, queryCount: number) {
  const texts = Array.from({ length: queryCount }, () => `${pick(b.testTokens)} ${pick(VOCAB)} ${pick(VOCAB)}`);
  const queries = await b.embedder.embedQueries(texts, { chunks: b.have.get(TEST_AGENT)!, df: b.df });
  await query(b, queries[0], K); // untimed: Chroma's first query after the adds
  const before = await heapBytes();
  const t0 = performance.now();
  const index = await loadExact(b);
  out(`exact_load_s_${n}`, (performance.now() - t0) / 1000);
  out(`exact_memory_mb_${n}`, index.data.byteLength / MB);
  out(`exact_heap_growth_mb_${n}`, ((await heapBytes()) - before) / MB);
  const rowOf = new Map(index.ids.map((id, i) => [id, i]));
  const m = newFigures();
  for (const [i, qv] of queries.entries()) {
    await measureQuery(b, index, rowOf, qv, m);
    if ((i + 1) % 10 === 0) log(`size ${n}: ${i + 1}/${queries.length} queries`);
  }
  await measureApp(b, n, index, queries);
  for (const p of [50, 95]) out(`chroma_filtered_query_p${p}_ms_${n}`, pct(m.chroma, p / 100));
  out(`chroma_filtered_query_p50_ms_${n}_depth_${DEPTHS.at(-1)}`, pct(m.chromaDeep, 0.5));
  for (const p of [50, 95]) out(`exact_search_p${p}_ms_${n}`, pct(m.exact, p / 100));
  out(`ann_recall_at_10_${n}`, mean(m.recall));
  out(`ann_miss_rank1_${n}`, m.miss / queries.length);
  out(`exact_distance_p50_${n}_rank_1_and_10`, `${pct(m.d1, 0.5).toFixed(4)} ${pct(m.d10, 0.5).toFixed(4)}`);
  out(`exact_ties_at_10th_${n}`, m.ties); // queries whose exact 10th and 11th are within TIE
  out(`chroma_distance_max_abs_diff_${n}`, m.diff.toExponential(1));
  for (const [d, r] of m.rescore) {
    out(`rescore_recall_at_10_${n}_depth_${d}`, mean(r.recall));
    out(`rescore_p50_ms_${n}_depth_${d}`, pct(r.ms, 0.5));
  }
}

/**
 * `--table`: a compact table of `rows` random unit rows built as the app builds one (documents of
 * CHUNKS_PER_DOC chunks appended in turn), once with the JavaScript quantizing it used before and
 * once with the kernel's; then written to a file and read back, as a restart does.
 */
async function measureTable(rows: number, dim: number, tmp: string) {
  const { quantizeRow, ROWS_PER_CALL, unitQuery, VectorTable } = await import("../../lib/retrieval/exact-kernel");
  const { loadTable, saveTable } = await import("../../lib/retrieval/table-file");
  out("table", `${rows} x ${dim}, i8`);
  log(`table: making ${rows} random unit rows`);
  const data = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    const row = data.subarray(r * dim, (r + 1) * dim);
    let sq = 0;
    for (let i = 0; i < dim; i++) sq += (row[i] = rand() - 0.5) ** 2;
    for (let i = 0; i < dim; i++) row[i] /= Math.sqrt(sq);
  }

  log("table: quantizing in JavaScript");
  let t0 = performance.now();
  const bytes = new Int8Array(rows * dim);
  const scales = new Float32Array(rows);
  const errors = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const q = quantizeRow(data.subarray(r * dim, (r + 1) * dim), bytes, r * dim);
    scales[r] = q.scale;
    errors[r] = q.error;
  }
  const js = (performance.now() - t0) / 1000;
  out("i8_build_js_s", js);

  log("table: building it with the kernel");
  t0 = performance.now();
  const table = new VectorTable(dim, rows, "i8");
  for (let r = 0; r < rows; r += CHUNKS_PER_DOC) {
    const n = Math.min(CHUNKS_PER_DOC, rows - r);
    table.append(1 + r / CHUNKS_PER_DOC, 0, n, data.subarray(r * dim, (r + n) * dim));
  }
  const wasm = (performance.now() - t0) / 1000;
  out("i8_build_wasm_s", wasm);
  out("i8_build_speedup", js / wasm);
  const stored = table.storedRows();
  const tableScales = new Float32Array(stored.scales.buffer, stored.scales.byteOffset, rows);
  let differ = 0;
  for (let r = 0; r < rows; r++) {
    if (tableScales[r] !== scales[r]) differ++;
    for (let i = 0; i < dim; i++) if (stored.data[r * table.stride + i] !== (bytes[r * dim + i] & 0xff)) differ++;
  }
  out("i8_build_values_differing_from_js", differ); // exact ties may round the other way
  out("i8_table_mb", table.bytes / MB);
  measureBatchScoring(table, dim, ROWS_PER_CALL, unitQuery);

  const file = path.join(tmp, "compact.table");
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  t0 = performance.now();
  const saving = saveTable(table, file, JSON.stringify({ rows, dim }));
  out("table_save_sync_ms", performance.now() - t0); // the per-row arrays copied before the first write
  await saving;
  out("table_save_s", (performance.now() - t0) / 1000);
  delay.disable();
  out("table_save_event_loop_delay_max_ms", delay.max / 1e6); // the machine's own scheduling included
  out("table_file_mb", fs.statSync(file).size / MB);
  t0 = performance.now();
  const loaded = await loadTable(file);
  out("table_load_s", (performance.now() - t0) / 1000); // the file just written: in the page cache
  const query = [unitQuery(Array.from({ length: dim }, () => rand() - 0.5))];
  const [a, b] = [table, loaded?.table].map((t) => {
    const d = new Float32Array(rows);
    for (let from = 0; t && from < rows; from += ROWS_PER_CALL) t.score(query, from, Math.min(ROWS_PER_CALL, rows - from), [d], from);
    return Buffer.from(d.buffer);
  });
  out("table_load_scores_equal", loaded && a.equals(b) ? "yes" : "no");
}

/** Batches of this many queries, as an evaluation scores them; rounds alternate the two ways, the median kept. */
const BATCH = 32;
const SCORE_ROUNDS = 3;

/**
 * A batch of BATCH queries scored against the table a kernel call's rows at a time, as a scan does:
 * each query alone (the table's rows read once per query, as batches were scored before) and the
 * batch in one call (rows read once per four queries); the two must give the same distances.
 */
function measureBatchScoring(
  table: import("../../lib/retrieval/exact-kernel").VectorTable,
  dim: number,
  rowsPerCall: number,
  unitQuery: (v: ArrayLike<number>) => Float32Array,
) {
  log(`table: scoring ${BATCH} queries, ${SCORE_ROUNDS} rounds`);
  const queries = Array.from({ length: BATCH }, () => unitQuery(Array.from({ length: dim }, () => rand() - 0.5)));
  const alone = queries.map(() => new Float32Array(table.rows));
  const together = queries.map(() => new Float32Array(table.rows));
  const one: number[] = [];
  const four: number[] = [];
  for (let round = 0; round < SCORE_ROUNDS; round++) {
    let t0 = performance.now();
    for (let from = 0; from < table.rows; from += rowsPerCall) {
      const n = Math.min(rowsPerCall, table.rows - from);
      queries.forEach((q, k) => table.score([q], from, n, [alone[k]], from));
    }
    one.push(performance.now() - t0);
    t0 = performance.now();
    for (let from = 0; from < table.rows; from += rowsPerCall)
      table.score(queries, from, Math.min(rowsPerCall, table.rows - from), together, from);
    four.push(performance.now() - t0);
  }
  out(`i8_score_${BATCH}_queries_one_at_a_time_ms`, pct(one, 0.5));
  out(`i8_score_${BATCH}_queries_four_at_a_time_ms`, pct(four, 0.5));
  out("i8_score_ms_per_query_one_at_a_time", pct(one, 0.5) / BATCH);
  out("i8_score_ms_per_query_four_at_a_time", pct(four, 0.5) / BATCH);
  out("i8_score_four_at_a_time_speedup", pct(one, 0.5) / pct(four, 0.5));
  out("i8_score_rounds_ms", `one ${one.map(Math.round).join(" ")}; four ${four.map(Math.round).join(" ")}`);
  const same = alone.every((d, k) => Buffer.from(d.buffer).equals(Buffer.from(together[k].buffer)));
  out("i8_score_four_at_a_time_equal", same ? "yes" : "no");
}

async function main(args: ReturnType<typeof parseArgs>, tmp: string, onChroma: (stop: () => Promise<void>) => void) {
  const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false, log });
  onChroma(chroma.stop);
  Object.assign(process.env, {
    DATA_DIR: path.join(tmp, "data"),
    CHROMA_URL: chroma.url,
    CHROMA_COLLECTION_PREFIX: "bench",
    EMBEDDING_PROVIDER: "local",
    KB_DEMO: "0",
  });
  // Imported only now: lib/ reads the environment on first use.
  const vs: VectorStore = await import("../../lib/vector-store/client");
  const { LocalEmbedder, newFeatureCounts }: Embeddings = await import("../../lib/embeddings/index");
  const embedder = new LocalEmbedder({ log });
  await embedder.ready(); // the word vectors, before any embedding is timed
  const collection = await vs.collectionFor(embedder); // the app's name, HNSW settings and space
  const b: Bench = {
    vs,
    collection,
    embedder,
    space: vs.DISTANCE_SPACE,
    agents: args.agents,
    have: new Map(),
    testTokens: [],
    df: newFeatureCounts(),
    nextDoc: 1,
  };
  out("model", embedder.model);
  out("collection", `${collection.name} (${b.space}, ${JSON.stringify(vs.HNSW)})`);
  out("agents", `${args.agents} (agent under test: N chunks; each other: min(N/2, ${OTHER_CAP}))`);
  out("queries", args.queries);
  for (const n of args.sizes) {
    log(`size ${n}: growing the collection`);
    await grow(b, n);
    await measureSize(b, n, args.queries);
  }
}

const args = parseArgs(process.argv.slice(2)); // before the temporary directory: a usage error leaves nothing behind
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
(args.table ? measureTable(args.rows, args.dim, tmp) : main(args, tmp, (stop) => (stopChroma = stop)))
  .catch((err) => {
    console.error(`exact-scoring bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  })
  .finally(cleanup);
