// `npm run bench:curation [-- --chunks 1000,5000]`: what a chunk curation change costs through the
// app's own code, on a real Chroma started in a temporary directory, with the local embedder.
// For a document of each size: an edit of one chunk's text, attaching questions to one chunk, a
// switch-off of one chunk and its undo, switching the whole document off and on (each writes the
// document again as a new version, unchanged chunks' vectors copied), against a re-chunk of the
// same document (every chunk embedded again). Prints one `key: value` line per figure.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startChroma } from "../chroma-server.mjs";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "1000,5000" } } });
const SIZES = values.chunks.split(",").map(Number);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-curation-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
Object.assign(process.env, {
  DATA_DIR: path.join(tmp, "data"),
  CHROMA_URL: chroma.url,
  CHROMA_COLLECTION_PREFIX: "bench",
  EMBEDDING_PROVIDER: "local",
  KB_DEMO: "0",
});
const TOPICS = ["router", "invoice", "password", "refund", "shipping", "printer", "account", "export", "warranty", "firmware"];
try {
  // Imported only now: lib/ reads the environment on first use.
  const { createAgent } = await import("../../lib/db/agents");
  const { ingestFile, rechunkDocument } = await import("../../lib/ingest/pipeline");
  const { changeChunk, documentCuration, switchDocument, undoLastChange } = await import("../../lib/ingest/curate");
  const { findDocument } = await import("../../lib/db/documents");
  const { embedder } = await import("../../lib/embeddings/configured");
  await embedder().embed(["warm-up"]);

  const seconds = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return ((performance.now() - started) / 1000).toFixed(2);
  };
  for (const size of SIZES) {
    const agent = createAgent({ name: `curation ${size}`, tools: ["document_search"] });
    // Sentences of about 90 characters, one chunk each at a chunk size of 100 without overlap.
    const text = Array.from({ length: size }, (_, i) => `Article ${i} on the ${TOPICS[i % TOPICS.length]}: step ${i % 7} of the guide.`)
      .map((s) => s.padEnd(90, "."))
      .join("\n\n");
    let id = 0;
    const ingestS = await seconds(async () => {
      const r = await ingestFile(
        agent.id,
        { filename: "manual.md", bytes: new TextEncoder().encode(text) },
        { chunkSize: 100, chunkOverlap: 0 },
      );
      if (r.status !== "ready") throw new Error(r.message);
      id = r.document_id!;
    });
    const chunks = () => documentCuration(findDocument(agent.id, id)!).chunks;
    console.log(`chunks_${size}: ${chunks().length}`);
    console.log(`ingest_${size}_s: ${ingestS}`);
    const step = async (name: string, run: () => Promise<{ document_id: number }>) => {
      const s = await seconds(async () => (id = (await run()).document_id));
      console.log(`${name}_${size}_s: ${s}`);
    };
    const [first, second, third] = chunks();
    await step("edit_one_chunk", () => changeChunk(agent.id, first.id, { text: "The router reset takes ten seconds." }, null));
    await step("questions_one_chunk", () => changeChunk(agent.id, second.id, { questions: ["how do I reset the router"] }, null));
    await step("switch_off_one_chunk", () => changeChunk(agent.id, third.id, { enabled: false }, null));
    await step("undo_switch_off", () => undoLastChange(agent.id, id, null));
    await step("switch_document_off", () => switchDocument(agent.id, id, false, null));
    await step("switch_document_on", () => switchDocument(agent.id, id, true, null));
    await step("rechunk_all_embedded", async () => {
      const r = await rechunkDocument(agent.id, id, { chunkSize: 100, chunkOverlap: 10 });
      if (r.status !== "ready") throw new Error(r.message);
      return { document_id: r.document_id! };
    });
  }
} finally {
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
