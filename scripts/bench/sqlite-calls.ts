// `npm run bench:sqlite-calls [-- --files 5] [--verbose]`: how many SQLite statements the app
// executes for one search and for one upload, through the same handlers the routes serve
// (POST /api/agents/{id}/documents/search and POST /api/agents/{id}/documents), on a real Chroma
// started in a temporary directory. Prints the count of each (run, get, all and iterate calls on
// the app's connection); --verbose lists them per SQL text. The search is counted warm (a first
// search loaded what a running app holds), cold, and ranked through Chroma's index.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startChroma } from "../chroma-server.mjs";
import { call, filesForm } from "../../test/http";

const { values } = parseArgs({ options: { files: { type: "string", default: "5" }, verbose: { type: "boolean", default: false } } });
const FILES = Number(values.files);
/** Statements named in the summary line: the facts a request should look up once. */
const NAMED = {
  "agent loads": "SELECT * FROM agents WHERE id = ?",
  "ready-chunk counts": "SELECT COALESCE(SUM(chunk_count), 0) AS n FROM documents WHERE agent_id = ? AND status = 'ready'",
  "ready signatures": "SELECT COUNT(*) AS n, TOTAL(id) AS s FROM documents WHERE agent_id = ? AND status = 'ready'",
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-sqlite-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
Object.assign(process.env, {
  DATA_DIR: path.join(tmp, "data"),
  CHROMA_URL: chroma.url,
  CHROMA_COLLECTION_PREFIX: "bench",
  EMBEDDING_PROVIDER: "local",
  KB_DEMO: "0",
});
try {
  // Imported only now: lib/ reads the environment on first use.
  const { createAgent } = await import("../../lib/db/agents");
  const { countStatements } = await import("../../lib/db/statement-count");
  const { embedder } = await import("../../lib/embeddings/configured");
  const { useExactLimits } = await import("../../lib/retrieval/exact");
  const documents = await import("../../app/api/agents/[id]/documents/route");
  const search = await import("../../pages/api/agents/[id]/documents/search");
  await embedder().embed(["warm-up"]);

  const words =
    "account billing invoice refund shipping order password reset team seat plan export report integration slack email phone chat hours holiday warehouse parcel tracking label return credit card upgrade downgrade renewal contract admin permission role".split(
      " ",
    );
  const text = (i: number) =>
    Array.from(
      { length: 12 },
      (_, s) => `${Array.from({ length: 30 }, (_, w) => words[(i * 7 + s * 13 + w * 3) % words.length]).join(" ")}.`,
    ).join(" ") + ` Article ${i}.`;
  const upload = (from: number, n: number) =>
    call(documents.POST, {
      body: filesForm(Array.from({ length: n }, (_, i) => [`article-${from + i}.txt`, text(from + i)])),
      params: { id: String(agent.id) },
    });
  const searchOnce = () =>
    call(search.POST, { json: { query: "how do I get a refund for my order", top_k: 5 }, params: { id: String(agent.id) } });
  const counted = async (label: string, run: () => Promise<{ status: number }>) => {
    const counter = countStatements();
    let status: number;
    try {
      status = (await run()).status;
    } finally {
      counter.stop();
    }
    const { total, bySql } = counter.count();
    const of = (sql: string) => [...bySql].filter(([s]) => s.startsWith(sql)).reduce((n, [, k]) => n + k, 0);
    const facts = Object.entries(NAMED)
      .map(([name, sql]) => `${name} ${of(sql)}`)
      .join(", ");
    console.log(`${label.padEnd(28)} ${String(total).padStart(5)}   (HTTP ${status}; of which ${facts})`);
    if (values.verbose) {
      for (const [sql, n] of [...bySql].sort((a, b) => b[1] - a[1]))
        console.log(`  ${String(n).padStart(4)}  ${sql.replace(/\s+/g, " ").slice(0, 150)}`);
    }
  };

  const agent = createAgent({ name: "Bench SQLite calls", tools: ["document_search"] });
  const first = await upload(0, 3);
  if (first.status !== 201) throw new Error(`the first upload answered ${first.status}: ${JSON.stringify(first.body)}`);
  console.log(`SQLite statements executed (agent of 3 documents, ${embedder().model})\n`);
  await counted("search_cold", searchOnce);
  await counted("search", searchOnce);
  await counted(`upload_${FILES}_files`, () => upload(100, FILES));
  await counted("search_after_upload", searchOnce);
  // The same agent ranked by Chroma's index, as one past EXACT_MAX_CHUNKS is.
  useExactLimits({ chunks: 0 });
  await searchOnce();
  await counted("search_via_index", searchOnce);
} finally {
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
