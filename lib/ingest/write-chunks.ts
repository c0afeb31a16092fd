import "server-only";
import type { Collection } from "chromadb";
import type { Embedder } from "../embeddings";
import { addChunks } from "../vector-store/chunks";
import type { Chunk } from "./chunking";

export type IngestStage = "extract" | "chunk" | "embed" | "write" | "done";
export type IngestProgress = (p: { stage: IngestStage; done: number; total: number }) => void;

// Chunks embedded and written per step: bounds memory and gives the UI progress to show.
const EMBED_SLICE = 64;

/**
 * The one loop that writes a document's chunks, for ingest and re-embedding alike: embed a
 * slice, add it, next slice, so a long file never holds all its vectors in memory at once.
 * Progress: `embed` before a slice, `write` with the chunks written so far after it. A failure
 * throws; the caller removes what was written (ingest queues it, re-embedding deletes it).
 */
export async function writeChunks(
  target: { collection: Collection; model: Embedder },
  doc: { agentId: number; documentId: number; filename: string },
  chunks: Chunk[],
  onProgress: IngestProgress = () => {},
): Promise<void> {
  for (let i = 0; i < chunks.length; i += EMBED_SLICE) {
    const slice = chunks.slice(i, i + EMBED_SLICE);
    onProgress({ stage: "embed", done: i, total: chunks.length });
    const vectors = await target.model.embed(slice.map((c) => c.text));
    await addChunks(target.collection, doc, slice, vectors);
    onProgress({ stage: "write", done: i + slice.length, total: chunks.length });
  }
}
