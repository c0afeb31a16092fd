// `npm run bench:coverage [-- --chunks 100000 --calls 100000]`: what coverage costs at size. An
// agent with `chunks` chunks (6 per document) and `calls` logged searches of 5 results each,
// spread over 30 days, the documents drawn with a skew (a few are asked about often, most
// rarely): the time to log the calls (each writes its coverage rows), then the coverage of every
// document over 30 and 7 days and of one document's chunks, each the median of 5.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "100000" }, calls: { type: "string", default: "100000" } } });
const CHUNKS = Number(values.chunks);
const CALLS = Number(values.calls);
const PER_DOCUMENT = 6;
const RESULTS = 5;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-coverage-"));
Object.assign(process.env, { DATA_DIR: tmp, KB_DEMO: "0", EMBEDDING_PROVIDER: "local", TOOL_CALL_RETENTION_DAYS: "3650" });

const { db } = await import("../../lib/db/client");
const { createAgent } = await import("../../lib/db/agents");
const { logToolCall } = await import("../../lib/db/tool-calls");
const { agentCoverage, chunkCoverage } = await import("../../lib/questions/coverage");

const agent = createAgent({ name: "bench coverage", tools: ["document_search"] });
const documents = Math.ceil(CHUNKS / PER_DOCUMENT);
const t = new Date().toISOString();
const insert = db().prepare(
  `INSERT INTO documents (agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count, status, text, embedding_model, created_at, updated_at)
   VALUES (?, ?, 'md', ?, 100, 800, 100, ?, 'ready', '', 'local', ?, ?)`,
);
const ids: number[] = [];
db().transaction(() => {
  for (let i = 0; i < documents; i++)
    ids.push(Number(insert.run(agent.id, `article-${i}.md`, `sha${i}`, PER_DOCUMENT, t, t).lastInsertRowid));
})();

// A fixed generator: the same calls on every run.
let seed = 42;
const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
const skewed = () => Math.floor(documents * random() ** 3);

const started = performance.now();
for (let c = 0; c < CALLS; c++) {
  const results = Array.from({ length: RESULTS }, () => {
    const d = skewed();
    return { document_id: ids[d], chunk_index: Math.floor(random() * PER_DOCUMENT), filename: `article-${d}.md`, score: random() };
  });
  logToolCall({
    agentId: agent.id,
    tool: "document_search",
    input: { query: `question ${c}` },
    ok: true,
    latencyMs: 1,
    resultCount: RESULTS,
    retrieval: { model: "local", mode: "vector", cut: null, top_k: RESULTS, best: 0.1, nearest: null, results },
  });
}
const logSeconds = (performance.now() - started) / 1000;
// Spread over 30 days, as a month of traffic.
const month = 30 * 24 * 3_600_000;
db().exec(
  `UPDATE tool_calls SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (id % 720) || ' hours');
   UPDATE retrievals SET created_at = (SELECT created_at FROM tool_calls WHERE id = call_id);
   UPDATE retrieved_documents SET created_at = (SELECT created_at FROM tool_calls WHERE id = call_id);`,
);
const median = (f: () => unknown) => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2];
};
const since = (days: number) => new Date(Date.now() - days * 24 * 3_600_000).toISOString();
const all = agentCoverage(agent.id, since(30));
console.log(`coverage_chunks: ${CHUNKS} (${documents} documents)`);
console.log(`coverage_calls: ${CALLS} (${RESULTS} results each, over ${month / 86_400_000} days)`);
console.log(`coverage_log_calls_per_s: ${Math.round(CALLS / logSeconds)}`);
console.log(`coverage_documents_30d_ms: ${median(() => agentCoverage(agent.id, since(30))).toFixed(1)}`);
console.log(`coverage_documents_7d_ms: ${median(() => agentCoverage(agent.id, since(7))).toFixed(1)}`);
console.log(`coverage_one_document_chunks_ms: ${median(() => chunkCoverage(agent.id, ids[0], since(30))).toFixed(2)}`);
console.log(`coverage_never_retrieved_30d: ${all.never_retrieved} of ${all.documents.length}`);
const { retrievedByName } = await import("../../lib/db/coverage");
const { listDocuments } = await import("../../lib/db/documents");
console.log(`coverage_sql_30d_ms: ${median(() => retrievedByName(agent.id, since(30))).toFixed(1)}`);
console.log(`coverage_list_documents_ms: ${median(() => listDocuments(agent.id)).toFixed(1)}`);
console.log(`coverage_db_mb: ${(fs.statSync(path.join(tmp, "kb.sqlite")).size / 1e6).toFixed(0)}`);
fs.rmSync(tmp, { recursive: true, force: true });
