import "server-only";
import { createHash } from "node:crypto";
import { createAgent } from "../../lib/db/agents";
import { collectionFor } from "../../lib/vector-store/client";
import { chunkText, type Chunk } from "../../lib/core/chunking";
import { agentCorpusStats } from "../../lib/retrieval/corpus-stats";
import { commitReady, deleteDocumentRow, insertDocument } from "../../lib/db/documents";
import type { Embedder } from "../../lib/embeddings";
import { removeAgent, removeDocument } from "../../lib/ingest/remove";
import { deleteAgentVectors } from "../../lib/vector-store/chunks";
import { addNotedChunks } from "../../lib/ingest/write-chunks";
import { useEmbedder } from "./run";

// Far above any real agent id, so the scratch vectors can be deleted by their agent filter.
const SCRATCH_AGENT = 2_000_000_000;
const SLICE = 64; // as ingest writes

/**
 * Chroma insert throughput for an embedder's vectors: `count` chunks written in slices of 64
 * through the app's own write of chunk vectors (addNotedChunks), then removed. Embedding time is measured apart.
 */
export async function chromaAddThroughput(
  e: Embedder,
  texts: string[],
  count: number,
): Promise<{ vectorsPerSecond: number; msPerSlice: number }> {
  const chunks: Chunk[] = Array.from({ length: count }, (_, i) => {
    const text = texts[i % texts.length];
    return { index: i, start: 0, end: text.length, text };
  });
  const vectors = await e.embed(chunks.map((c) => c.text));
  const collection = await collectionFor(e);
  const agentId = SCRATCH_AGENT + e.dimension;
  const started = performance.now();
  let ms: number;
  try {
    for (let i = 0; i < chunks.length; i += SLICE) {
      // One "document" per slice, as a long upload would be written.
      await addNotedChunks(collection, { agentId, documentId: i }, chunks.slice(i, i + SLICE), vectors.slice(i, i + SLICE));
    }
    ms = performance.now() - started;
  } finally {
    await deleteAgentVectors(collection, agentId);
  }
  return { vectorsPerSecond: count / (ms / 1000), msPerSlice: ms / Math.ceil(count / SLICE) };
}

/** Mean time to embed one text with embedOne-style synchronous work, after a JIT warm-up. */
export async function embedMicros(e: Embedder, texts: string[], rounds = 5): Promise<number> {
  await e.embed(texts); // warm-up (and loads word vectors)
  const started = performance.now();
  for (let r = 0; r < rounds; r++) await e.embed(texts);
  return ((performance.now() - started) * 1000) / (rounds * texts.length);
}

/**
 * Cost of the per-agent feature counts that weight queries, through the app's own
 * agentCorpusStats: `texts` become ready documents of a scratch agent in SQLite (no vectors:
 * the counts read only the stored text), then the counts are built cold, checked again with
 * nothing changed (what every search pays), grown by one document, shrunk by removeDocument,
 * and rebuilt after a row vanished behind their back.
 */
export async function corpusStatsCost(e: Embedder, texts: string[]) {
  useEmbedder(e); // removeDocument updates the counts of the configured model
  const agent = createAgent({ name: `corpus stats cost ${Date.now()}`, tools: [] });
  const add = async (text: string, i: number) => {
    const id = insertDocument(
      {
        agent_id: agent.id,
        filename: `doc-${i}.txt`,
        type: "txt",
        bytes: text.length,
        sha256: createHash("sha256").update(text).digest("hex"),
        chunk_size: 800,
        chunk_overlap: 100,
        text,
        embedding_model: e.model,
      },
      chunkText(text, 800, 100),
    );
    await commitReady(agent.id, id, `doc-${i}.txt`, chunkText(text, 800, 100).length);
    return id;
  };
  const ids: number[] = [];
  for (const [i, text] of texts.slice(0, -1).entries()) ids.push(await add(text, i));
  const timed = async () => {
    const started = performance.now();
    const stats = (await agentCorpusStats(agent.id, e))!;
    return { ms: performance.now() - started, stats };
  };
  try {
    const used = () => {
      global.gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = used();
    const cold = await timed();
    const memoryMB = (used() - before) / 1e6;
    const unchanged = await timed();
    await add(texts[texts.length - 1], texts.length - 1);
    const added = await timed();
    await removeDocument(agent.id, ids[0]); // takes the document out of the counts
    const removed = await timed();
    deleteDocumentRow(agent.id, ids[1]); // gone without removeDocument: caught, counts rebuilt
    const rebuilt = await timed();
    return {
      chunks: cold.stats.chunks,
      features: cold.stats.df.size,
      memoryMB,
      coldMs: cold.ms,
      unchangedMs: unchanged.ms,
      addedMs: added.ms,
      removedMs: removed.ms,
      rebuiltMs: rebuilt.ms,
    };
  } finally {
    await removeAgent(agent.id);
  }
}
