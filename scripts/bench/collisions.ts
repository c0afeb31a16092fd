// `npm run bench:collisions [-- --chunks 20000]`: what the collision search (lib/collisions/)
// costs on one agent of N chunks, through the app's own code, with a real Chroma started in a
// temporary directory as the app runs. The search reads SQLite only (the chunks' text and the
// logged calls), so the corpus is written straight to SQLite as ready documents, without vectors:
// documents of about 10 chunks of 800 characters, sentences built from 40 templates over a
// vocabulary of 300 words (text that shares many phrases, harder for the search than prose), 2%
// of the documents copied verbatim and 2% copied with changed figures, and 5,000 logged
// questions. Prints the time, the peak memory above the start, and what was found against what
// was planted.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { startChroma } from "../chroma-server.mjs";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "20000" } } });
const CHUNKS = Number(values.chunks);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-collisions-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
Object.assign(process.env, {
  DATA_DIR: path.join(tmp, "data"),
  CHROMA_URL: chroma.url,
  CHROMA_COLLECTION_PREFIX: "bench",
  EMBEDDING_PROVIDER: "local",
  KB_DEMO: "0",
});

let seed = 20240611; // mulberry32, as the other benches: the same corpus on every run
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
const WORDS = Array.from({ length: 300 }, (_, i) => `term${i.toString(36)}${"aeiou"[i % 5]}`);
const TEMPLATES = Array.from({ length: 40 }, (_, i) => {
  const fixed = ["open the", "page and", "the setting", "for each", "takes about", "is shown on", "before you", "with the"];
  return (w: () => string, n: () => string) =>
    `${fixed[i % 8]} ${w()} ${fixed[(i + 3) % 8]} ${w()} ${n()} ${fixed[(i + 5) % 8]} ${w()} ${i % 3 ? w() : n()}.`;
});
const sentence = () => {
  const s = pick(TEMPLATES)(
    () => pick(WORDS),
    () => String(Math.floor(random() * 500)),
  );
  return s[0].toUpperCase() + s.slice(1);
};
const article = (chunks: number) => Array.from({ length: chunks * 8 }, sentence).join(" ");

try {
  const { createAgent } = await import("../../lib/db/agents");
  const { insertDocument, commitReady } = await import("../../lib/db/documents");
  const { chunkText } = await import("../../lib/core/chunking");
  const { logToolCall } = await import("../../lib/db/tool-calls");
  const { findCollisions } = await import("../../lib/collisions/collisions");

  const agent = createAgent({ name: `collisions ${CHUNKS}`, tools: ["document_search"] });
  const add = async (filename: string, text: string) => {
    const chunks = chunkText(text, 800, 100);
    const sha256 = createHash("sha256").update(text).digest("hex");
    const id = insertDocument(
      {
        agent_id: agent.id,
        filename,
        type: "txt",
        sha256,
        bytes: text.length,
        chunk_size: 800,
        chunk_overlap: 100,
        text,
        embedding_model: "local",
      },
      chunks,
    );
    await commitReady(agent.id, id, filename, chunks.length);
    return { id, chunks: chunks.length };
  };
  const seedStart = performance.now();
  const docs: { id: number; text: string }[] = [];
  let written = 0;
  const planted = new Map<string, "duplicate" | "conflicting">();
  while (written < CHUNKS) {
    const n = docs.length;
    let text: string;
    let copyOf: { id: number; kind: "duplicate" | "conflicting" } | undefined;
    if (n > 10 && n % 50 === 7) {
      text = docs[n - 5].text + "\n";
      copyOf = { id: docs[n - 5].id, kind: "duplicate" };
    } else if (n > 10 && n % 50 === 31) {
      text = docs[n - 9].text.replace(/\b\d+\b/g, (d) => String(Number(d) + 1));
      copyOf = { id: docs[n - 9].id, kind: "conflicting" };
    } else text = article(8 + Math.floor(random() * 5));
    const { id, chunks } = await add(`doc-${n}.txt`, text);
    if (copyOf) planted.set(`${copyOf.id}:${id}`, copyOf.kind);
    docs.push({ id, text });
    written += chunks;
  }
  for (let q = 0; q < 5000; q++) {
    const results = Array.from({ length: 5 }, (_, k) => ({
      document_id: pick(docs).id,
      chunk_index: 0,
      filename: "",
      score: 0.3 + k / 100,
    }));
    logToolCall({
      agentId: agent.id,
      tool: "document_search",
      input: { query: `question ${q}`, top_k: 5 },
      ok: true,
      latencyMs: 5,
      resultCount: 5,
      source: "api",
      retrieval: { model: "local", mode: "vector", cut: null, top_k: 5, best: 0.3, nearest: results[0], results },
    });
  }
  console.log(
    `seeded: ${docs.length} documents, ${written} chunks, 5000 logged questions in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );

  globalThis.gc?.();
  const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const base = used();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 20);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await findCollisions(agent.id, { limit: 1_000_000 });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, used());
  console.log(`chunks: ${result.scanned.chunks}`);
  const cpuSeconds = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1e6;
  // CPU time beside wall time: on a shared machine the wall time includes waiting for a core.
  console.log(`search_s: ${seconds.toFixed(2)} (cpu ${cpuSeconds.toFixed(2)} s)`);
  console.log(`peak_memory_mb: ${((peak - base) / 1e6).toFixed(0)} (heap and array buffers above the start)`);
  for (const kind of ["duplicate", "conflicting"] as const) {
    const found = result.collisions.filter((c) => c.kind === kind).map((c) => `${c.a.document_id}:${c.b.document_id}`);
    const expected = [...planted].filter(([, k]) => k === kind).map(([p]) => p);
    const hits = found.filter((p) => planted.get(p) === kind).length;
    console.log(
      `${kind}: ${found.length} found, ${expected.length} planted, precision ${(hits / (found.length || 1)).toFixed(3)}, recall ${(hits / (expected.length || 1)).toFixed(3)}`,
    );
  }
  console.log(`competing (random logged questions: chance pairs): ${result.collisions.filter((c) => c.kind === "competing").length}`);
  console.log(`boilerplate_buckets: ${result.scanned.boilerplate_buckets}`);
} finally {
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
