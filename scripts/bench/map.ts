// `npm run bench:map [-- --chunks 20000 --sample 5000]`: how long the map of an agent takes to
// compute and how much memory it takes, through the app's own code (lib/map/compute.ts and its
// worker thread) on a SQLite file in a temporary directory. The agent's chunks get generated
// vectors of the app's dimension (1,024, the local embedder's): unit vectors around 40 topics,
// 1,000 chunks a document, stored as ingest stores them (lib/db/chunk-vectors.ts). Chroma is not
// needed: the map reads the copies in SQLite only.
// Prints the projection's time per phase, the process's peak RSS while it ran (the worker thread
// is in the same process) and the longest the event loop waited meanwhile.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "20000" }, sample: { type: "string" } } });
const CHUNKS = Number(values.chunks);
const SAMPLE = values.sample ? Number(values.sample) : undefined;
const DIM = 1024;
const TOPICS = 40;
const PER_DOCUMENT = 1000;

const root = path.resolve(import.meta.dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-map-"));
const dataDir = path.join(tmp, "data");
fs.mkdirSync(dataDir, { recursive: true });
// The word-vector cache the tests build once, so the embedder's name is known without converting GloVe again.
const cache = path.join(root, "node_modules/.cache/kb-inspector-test");
fs.mkdirSync(cache, { recursive: true });
fs.symlinkSync(cache, path.join(dataDir, "cache"));
Object.assign(process.env, { DATA_DIR: dataDir, EMBEDDING_PROVIDER: "local", KB_DEMO: "0", CHROMA_URL: "http://127.0.0.1:9" });

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** A seeded generator (mulberry32), so every run maps the same vectors. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

try {
  const { createAgent } = await import("../../lib/db/agents");
  const { insertDocument, commitReady } = await import("../../lib/db/documents");
  const { writeChunkVectors } = await import("../../lib/db/chunk-vectors");
  const { embedder } = await import("../../lib/embeddings/configured");
  const { computeMap } = await import("../../lib/map/compute");

  const model = embedder().model;
  const random = seeded(1);
  const topics = Array.from({ length: TOPICS }, () => Array.from({ length: DIM }, () => random() - 0.5));
  const agent = createAgent({ name: "bench map", tools: ["document_search"] });
  const started = Date.now();
  for (let first = 0, doc = 0; first < CHUNKS; first += PER_DOCUMENT, doc++) {
    const n = Math.min(PER_DOCUMENT, CHUNKS - first);
    const chunks = Array.from({ length: n }, (_, i) => ({ index: i, start: i * 10, end: i * 10 + 9, text: `chunk ${first + i}` }));
    const vectors = chunks.map((_, i) => {
      const topic = topics[(doc * 7 + Math.floor(i / 50)) % TOPICS];
      const v = topic.map((t) => t + (random() - 0.5) * 0.6);
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
    const id = insertDocument(
      {
        agent_id: agent.id,
        filename: `doc-${doc}.txt`,
        type: "txt",
        sha256: `bench-${doc}`,
        bytes: n * 10,
        chunk_size: 800,
        chunk_overlap: 100,
        text: chunks.map((c) => c.text).join(" "),
        embedding_model: model,
      },
      chunks,
    );
    writeChunkVectors(id, model, chunks, vectors);
    await commitReady(agent.id, id, `doc-${doc}.txt`, n);
  }
  console.log(`${CHUNKS.toLocaleString("en")} chunks of ${DIM} dimensions stored in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  let lag = 0;
  let last = performance.now();
  const watch = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 50);
    last = now;
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const phases = new Map<string, number>();
  let phase = "";
  let phaseAt = performance.now();
  const t0 = performance.now();
  const map = await computeMap(agent.id, {
    sample: SAMPLE,
    onProgress: (p) => {
      if (p === phase) return;
      if (phase) phases.set(phase, performance.now() - phaseAt);
      phase = p;
      phaseAt = performance.now();
    },
  });
  phases.set(phase, performance.now() - phaseAt);
  const total = performance.now() - t0;
  clearInterval(watch);
  console.log(
    `map of ${map.chunkDocuments.length.toLocaleString("en")} chunks (sample ${SAMPLE ?? "default"}): ${(total / 1000).toFixed(1)} s; ` +
      [...phases].map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)} s`).join(", "),
  );
  console.log(
    `peak RSS while projecting ${mb(peak)} (${mb(rssBefore)} before; process max ${mb(process.resourceUsage().maxRSS * 1024)}); ` +
      `longest event-loop wait ${Math.round(lag)} ms`,
  );
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
