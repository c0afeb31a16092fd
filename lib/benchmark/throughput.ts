import "server-only";
import { collectionFor } from "../chroma";
import type { Chunk } from "../chunking";
import type { Embedder } from "../embeddings";
import { addChunks, deleteAgentVectors } from "../vectors";

// Far above any real agent id, so the scratch vectors can be deleted by their agent filter.
const SCRATCH_AGENT = 2_000_000_000;
const SLICE = 64; // as ingest writes

/**
 * Chroma insert throughput for an embedder's vectors: `count` chunks written in slices of 64
 * through the app's own addChunks, then removed. Embedding time is measured apart.
 */
export async function chromaAddThroughput(e: Embedder, texts: string[], count: number): Promise<{ vectorsPerSecond: number; msPerSlice: number }> {
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
      await addChunks(collection, { agentId, documentId: i, filename: "throughput" }, chunks.slice(i, i + SLICE), vectors.slice(i, i + SLICE));
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
