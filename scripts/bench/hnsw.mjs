#!/usr/bin/env node
// `node scripts/bench/hnsw.mjs [--vectors N] [--configs a,b,c] [--self-sample N]`
//
// Which HNSW parameters should the app's collection use? The app keeps every agent's chunks in
// one shared Chroma collection and filters queries by metadata agent_id; it has seen "every chunk
// of an agent" (n_results = the agent's count) return fewer than stored, and chunks not found even
// with their own vector. For each named preset this starts a private Chroma, fills a fresh
// collection with N seeded synthetic clustered vectors spread over 10 agents, and prints
// `key: value` figures on stdout (progress on stderr): add speed, filtered query latency,
// full-ranking and self-query misses, recall@10 against brute force, the configuration Chroma
// reports, and whether ef_search can be changed on an existing collection. Chroma is stopped and
// its temporary directory removed at the end, also on failure or Ctrl-C.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startChroma } from "../chroma-server.mjs";

// ---------------------------------------------------------------- settings
const PRESETS = {
  default: {}, // only the space: how the app creates its collection today (Chroma: 100/100/16)
  m32ef100: { ef_construction: 200, max_neighbors: 32, ef_search: 100 },
  m32ef200: { ef_construction: 200, max_neighbors: 32, ef_search: 200 },
  m48ef200: { ef_construction: 400, max_neighbors: 48, ef_search: 200 },
};
const DIM = 1024; // the local embedder's dimension
const CLUSTERS = 200; // topics; each agent owns 20 of them and borrows from the rest
const AGENTS = 10;
const CHUNKS_PER_DOC = 8;
const LATENCY_QUERIES = 200;
const RECALL_QUERIES = 100;
const RANK_AGENTS = [0, 4, 9]; // the smallest, a middle and the largest agent
const SELF_BATCH = 100; // query_embeddings per self-query request
const MODIFIED_EF = 10; // far below every preset, so a change that reaches queries shows in recall
const DB = "/api/v2/tenants/default_tenant/databases/default_database";
const log = (msg) => console.error(`[hnsw] ${msg}`);
const out = (k, v) => console.log(`${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`);
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
function fail(msg) {
  console.error(`hnsw bench: ${msg}`);
  process.exit(2);
}

const args = { vectors: 20000, configs: Object.keys(PRESETS), selfSample: null };
for (let i = 2; i < process.argv.length; i++) {
  const [key, inline] = process.argv[i].includes("=") ? process.argv[i].split(/=(.*)/s) : [process.argv[i]];
  const value = () => inline ?? process.argv[++i] ?? "";
  if (key === "--vectors") args.vectors = Number(value());
  else if (key === "--configs") args.configs = value().split(",").filter(Boolean);
  else if (key === "--self-sample") args.selfSample = Number(value());
  else fail(`unknown argument ${key}; usage: [--vectors N] [--configs ${Object.keys(PRESETS).join(",")}] [--self-sample N]`);
}
if (!Number.isInteger(args.vectors) || args.vectors < 1000) fail("--vectors needs a whole number of at least 1000");
for (const c of args.configs) if (!PRESETS[c]) fail(`unknown config ${c}; presets: ${Object.keys(PRESETS).join(", ")}`);
const N = args.vectors;
// Self-query every vector up to 20k (a few minutes per config), a sample of 2000 above.
const SELF_SAMPLE = Math.min(N, args.selfSample ?? (N <= 20000 ? N : 2000));

// ---------------------------------------------------------------- seeded synthetic data
function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = new Float64Array(DIM);
/** v += scale * (a random unit direction); returns v. */
function addUnitNoise(v, scale, r) {
  let norm = 0;
  for (let i = 0; i < DIM; i += 2) {
    const m = Math.sqrt(-2 * Math.log(r() || 1e-12));
    const t = 2 * Math.PI * r();
    gauss[i] = m * Math.cos(t);
    gauss[i + 1] = m * Math.sin(t);
    norm += gauss[i] ** 2 + gauss[i + 1] ** 2;
  }
  const f = scale / Math.sqrt(norm);
  for (let i = 0; i < DIM; i++) v[i] += f * gauss[i];
  return v;
}
function normalise(v) {
  const n = Math.hypot(...v);
  for (let i = 0; i < DIM; i++) v[i] /= n;
  return v;
}

const rand = mulberry32(20240611);
const centres = Array.from({ length: CLUSTERS }, () => normalise(addUnitNoise(new Float64Array(DIM), 1, rand)));
/** A topic for one of the agent's documents: mostly one of its own, sometimes any other. */
const topicOf = (agent, r) =>
  r() < 0.7 ? agent * (CLUSTERS / AGENTS) + Math.floor(r() * (CLUSTERS / AGENTS)) : Math.floor(r() * CLUSTERS);
/** A document's direction: its topic's centre moved by 0.5 in a random direction. */
const docDirection = (agent, r) => addUnitNoise(Float64Array.from(centres[topicOf(agent, r)]), 0.5, r);
/** One chunk of that document, normalised: cosine ≈ 0.72 to chunks of its document, ≈ 0.57 to its topic. */
const chunkOf = (dir, r) => Float32Array.from(normalise(addUnitNoise(Float64Array.from(dir), 0.7, r)));

// Agents get shares proportional to 1..10, so a small agent (1/55 of the collection) and a large
// one (10/55) are both there; documents of all agents are shuffled, as mixed uploads arrive.
const docs = [];
const shares = Array.from({ length: AGENTS }, (_, a) => Math.round((N * (a + 1)) / 55));
shares[AGENTS - 1] += N - shares.reduce((s, x) => s + x, 0);
for (let a = 0; a < AGENTS; a++)
  for (let left = shares[a]; left > 0; left -= CHUNKS_PER_DOC) docs.push({ agent: a, chunks: Math.min(CHUNKS_PER_DOC, left) });
for (let i = docs.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [docs[i], docs[j]] = [docs[j], docs[i]];
}
const data = new Float32Array(N * DIM); // vector i, id `v${i}`, is data[i*DIM .. (i+1)*DIM)
const agentOf = new Uint8Array(N);
const meta = new Array(N);
const byAgent = Array.from({ length: AGENTS }, () => []);
const vec = (i) => data.subarray(i * DIM, (i + 1) * DIM);
for (let d = 0, i = 0; d < docs.length; d++) {
  const dir = docDirection(docs[d].agent, rand);
  for (let c = 0; c < docs[d].chunks; c++, i++) {
    data.set(chunkOf(dir, rand), i * DIM);
    agentOf[i] = docs[d].agent;
    meta[i] = { agent_id: docs[d].agent, document_id: d, chunk_index: c };
    byAgent[docs[d].agent].push(i);
  }
}
log(`generated ${N} vectors in ${docs.length} documents`);

// Fixed query sets, the same for every config: chunks of unseen documents of an agent. The
// exact top 10 of each recall query over that agent's vectors is computed here by brute force.
const qrand = mulberry32(99);
const nearQuery = (agent, r) => ({ agent, v: chunkOf(docDirection(agent, r), r) });
const latencyQueries = Array.from({ length: LATENCY_QUERIES }, () => nearQuery(Math.floor(qrand() * AGENTS), qrand));
const recallQueries = Array.from({ length: RECALL_QUERIES }, (_, k) => nearQuery(k % AGENTS, qrand));
for (const q of recallQueries) {
  const dot = (i) => {
    let s = 0;
    for (let d = 0, o = i * DIM; d < DIM; d++) s += q.v[d] * data[o + d];
    return s;
  };
  q.exact = byAgent[q.agent]
    .map((i) => [i, dot(i)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([i]) => `v${i}`);
}
const rankQueries = RANK_AGENTS.map((a) => nearQuery(a, mulberry32(1000 + a)));
const selfSample = Array.from({ length: N }, (_, i) => i);
for (let i = 0, r = mulberry32(7); i < SELF_SAMPLE; i++) {
  const j = i + Math.floor(r() * (N - i)); // partial Fisher-Yates: a seeded sample
  [selfSample[i], selfSample[j]] = [selfSample[j], selfSample[i]];
}
selfSample.length = SELF_SAMPLE;

// ---------------------------------------------------------------- Chroma over HTTP
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-hnsw-"));
let chroma = null;
let cleaning = null;
const cleanup = () =>
  (cleaning ??= (async () => {
    await chroma?.stop().catch((e) => log(`stopping Chroma: ${e.message}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  })());
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => cleanup().finally(() => process.exit(130)));

/** One request: { status, body }; throws unless the status is expected (expect null: never). */
async function call(method, urlPath, body, expect = [200, 201]) {
  const res = await fetch(`${chroma.url}${urlPath}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (expect && !expect.includes(res.status)) throw new Error(`${method} ${urlPath} answered ${res.status}: ${text.slice(0, 400)}`);
  try {
    return { status: res.status, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: res.status, body: text };
  }
}
/** A filtered query as the app sends it: only this agent's chunks, ids and distances back. */
const query = async (col, vectors, agent, k) =>
  (
    await call("POST", `${DB}/collections/${col}/query`, {
      query_embeddings: vectors.map((v) => Array.from(v)),
      n_results: k,
      where: { agent_id: agent },
      include: ["distances"],
    })
  ).body;
/** The configuration as Chroma reports it (GET takes the collection's name, the rest its id). */
const reported = async (name) => {
  const c = (await call("GET", `${DB}/collections/${name}`)).body;
  return c.configuration_json?.hnsw ?? c.configuration_json ?? c.configuration ?? c;
};

/** Adds every vector in batches of the server's max_batch_size, halving a batch that gets 413. */
async function addAll(col, maxBatch, base64) {
  let batch = maxBatch;
  let done = 0;
  let ms = 0;
  while (done < N) {
    const n = Math.min(batch, N - done);
    // The body is built before the clock starts: this times Chroma's add, not our encoding. The
    // base64 form is the raw Float32Array bytes, little-endian float32 on the x86/ARM hosts Node runs on.
    const ids = Array.from({ length: n }, (_, j) => `v${done + j}`);
    const embeddings = ids.map((_, j) =>
      base64 ? Buffer.from(data.buffer, (done + j) * DIM * 4, DIM * 4).toString("base64") : Array.from(vec(done + j)),
    );
    const body = JSON.stringify({ ids, embeddings, metadatas: meta.slice(done, done + n) });
    const t0 = performance.now();
    const res = await call("POST", `${DB}/collections/${col}/add`, body, null);
    const took = performance.now() - t0;
    if (res.status === 413 && batch > 1) {
      batch = Math.ceil(batch / 2);
      log(`add: ${n} vectors is past Chroma's payload limit; batches of ${batch}`);
      continue;
    }
    if (res.status !== 200 && res.status !== 201) throw new Error(`add answered ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
    ms += took;
    done += n;
    log(`add: ${done}/${N} (${round(ms / 1000)} s)`);
  }
  return N / (ms / 1000);
}

/**
 * "Every chunk of an agent": n_results = the agent's count. hnswlib searches with
 * ef = max(ef_search, k), so this shows vectors the graph cannot reach at all, whatever ef_search.
 */
async function fullRanking(col) {
  let missing = 0;
  let total = 0;
  const parts = [];
  for (const q of rankQueries) {
    const members = byAgent[q.agent];
    const got = new Set((await query(col, [q.v], q.agent, members.length)).ids[0]);
    const m = members.filter((i) => !got.has(`v${i}`)).length;
    parts.push(`agent${q.agent}=${m}/${members.length}`);
    missing += m;
    total += members.length;
  }
  return `${missing} of ${total} (${round(missing / total, 6)}; ${parts.join(" ")})`;
}

async function recallAt10(col) {
  let hits = 0;
  for (const q of recallQueries) {
    const got = new Set((await query(col, [q.v], q.agent, 10)).ids[0]);
    hits += q.exact.filter((id) => got.has(id)).length;
  }
  return round(hits / (10 * recallQueries.length), 4);
}

/** Each sampled vector queried with its own embedding, filtered to its agent: is it in its top 10? */
async function selfQuery(col) {
  let missing = 0;
  const t0 = performance.now();
  for (let a = 0; a < AGENTS; a++) {
    const mine = selfSample.filter((i) => agentOf[i] === a);
    for (let s = 0; s < mine.length; s += SELF_BATCH) {
      const part = mine.slice(s, s + SELF_BATCH);
      const res = await query(col, part.map(vec), a, 10);
      part.forEach((i, j) => (missing += res.ids[j].includes(`v${i}`) ? 0 : 1));
    }
    log(`self query: agent ${a} done (${round((performance.now() - t0) / 1000)} s)`);
  }
  return `${missing} of ${selfSample.length} (${round(missing / selfSample.length, 6)})`;
}

async function runConfig(name, pre) {
  const hnsw = { space: "cosine", ...PRESETS[name] };
  const colName = `hnsw-bench-${name}`;
  console.log("");
  out("config", name);
  out("hnsw_requested", hnsw);
  const col = (
    await call("POST", `${DB}/collections`, {
      name: colName,
      configuration: { hnsw },
      metadata: { embedding_dimension: DIM, distance_space: "cosine" },
    })
  ).body.id;
  out("configuration_reported", await reported(colName));
  out("add_per_s", Math.round(await addAll(col, pre.max_batch_size, pre.supports_base64_encoding === true)));

  // One untimed query per agent first, then the timed ones: the app's searches of a top 3.
  for (let a = 0; a < AGENTS; a++) await query(col, [latencyQueries[0].v], a, 3);
  const lat = [];
  for (const q of latencyQueries) {
    const t0 = performance.now();
    await query(col, [q.v], q.agent, 3);
    lat.push(performance.now() - t0);
  }
  lat.sort((a, b) => a - b);
  out("query_p50_ms", round(lat[Math.ceil(0.5 * lat.length) - 1]));
  out("query_p95_ms", round(lat[Math.ceil(0.95 * lat.length) - 1]));
  out("full_ranking_missing", await fullRanking(col));
  out("self_query_missing", await selfQuery(col));
  out("recall_at_10", await recallAt10(col));

  // Can ef_search change on the existing collection, and does the change reach queries? Chroma
  // keeps a loaded index in memory with the ef it was opened with, so measure again in the same
  // server and after a restart, which loads the index from disk with the stored configuration.
  const modify = async (change) => {
    const put = await call("PUT", `${DB}/collections/${col}`, { new_configuration: { hnsw: change } }, null);
    const ok = put.status === 200;
    out(
      `modify_${Object.entries(change).flat().join("_to_")}`,
      ok ? "accepted (HTTP 200)" : `rejected (HTTP ${put.status}: ${JSON.stringify(put.body).slice(0, 300)})`,
    );
    return ok;
  };
  if (await modify({ ef_search: MODIFIED_EF })) {
    out("configuration_after_modify", await reported(colName));
    out("recall_at_10_after_modify", await recallAt10(col));
    out("full_ranking_missing_after_modify", await fullRanking(col));
    log(`${name}: restarting Chroma to reload the index`);
    await chroma.stop();
    chroma = await startChroma({ dataDir, restart: false, log });
    out("configuration_after_restart", await reported(colName));
    out("recall_at_10_after_restart", await recallAt10(col));
    out("full_ranking_missing_after_restart", await fullRanking(col));
  }
  // max_neighbors shapes the graph as vectors are inserted: is a later change refused, or only recorded?
  if (await modify({ max_neighbors: 64 })) out("configuration_after_max_neighbors_modify", await reported(colName));
  await call("DELETE", `${DB}/collections/${colName}`, undefined, [200, 204]); // frees the server's memory
}

let exitCode = 0;
try {
  chroma = await startChroma({ dataDir, restart: false, log });
  const pre = (await call("GET", "/api/v2/pre-flight-checks")).body;
  out("chroma_version", (await call("GET", "/api/v2/version")).body);
  out("chromadb_js_client", JSON.parse(fs.readFileSync(new URL("../../node_modules/chromadb/package.json", import.meta.url))).version);
  out("vectors", N);
  out("dimension", DIM);
  out("agent_vectors", byAgent.map((l) => l.length).join(","));
  out("max_batch_size", pre.max_batch_size);
  out("base64_embeddings", pre.supports_base64_encoding === true);
  out("self_query_sample", SELF_SAMPLE);
  for (const name of args.configs) {
    const t0 = performance.now();
    await runConfig(name, pre);
    out("config_seconds", Math.round((performance.now() - t0) / 1000));
  }
} catch (err) {
  console.error(`hnsw bench failed: ${err?.stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
