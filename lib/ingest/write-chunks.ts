import "server-only";
import type { Collection } from "../vector-store/client";
import type { Embedder } from "../embeddings";
import { addChunks, collectionModel } from "../vector-store/chunks";
import { writeChunkVectors } from "../db/chunk-vectors";
import { noteVectorWrite } from "../db/index-check";
import { embeddedText, type Chunk } from "../core/chunking";

export type IngestStage = "extract" | "chunk" | "embed" | "write" | "done";
export type IngestProgress = (p: { stage: IngestStage; done: number; total: number }) => void;

/**
 * Adds a document's chunk vectors to Chroma, noted first in the log of vector writes
 * (lib/db/index-check.ts), so that a check after a crash knows they are among the newest; noted
 * before the add, so a crash between the two leaves the note. Ingest, re-embedding and an agent's
 * import write through here.
 */
export async function addNotedChunks(
  collection: Collection,
  doc: { agentId: number; documentId: number },
  chunks: Pick<Chunk, "index">[],
  embeddings: number[][],
): Promise<void> {
  noteVectorWrite({ collection: collection.name, model: collectionModel(collection), ...doc, chunks: chunks.length });
  await addChunks(collection, doc, chunks, embeddings);
}

/**
 * Vectors a caller has already (a curation change: the unchanged chunks' vectors of the version it
 * replaces), asked for one slice at a time so a long document's are never all held at once: the
 * slice's known vectors by chunk index.
 */
export type KnownVectors = (slice: Chunk[]) => Map<number, number[]>;

/** The slice's vectors: the known ones as they are, the others embedded from each chunk's embedded text. */
async function embedSlice(model: Embedder, slice: Chunk[], known?: KnownVectors): Promise<number[][]> {
  const have = known?.(slice) ?? new Map<number, number[]>();
  const missing = slice.filter((c) => !have.has(c.index));
  const made = missing.length ? await model.embed(missing.map(embeddedText)) : [];
  const byIndex = new Map(missing.map((c, i) => [c.index, made[i]]));
  return slice.map((c) => have.get(c.index) ?? byIndex.get(c.index)!);
}

// Chunks embedded and written per step: bounds memory and gives the UI progress to show.
const EMBED_SLICE = 64;

/**
 * The one loop that writes a document's chunks, for ingest and re-embedding alike: embed a
 * slice, hand it to Chroma, and embed the next slice while that add runs (adds are shared with
 * other documents being written at the same time, see batchedAdd). At most two slices' vectors
 * are held at once, so a long file never holds all its vectors in memory.
 * Progress: `embed` before a slice, `write` with the chunks written so far after each add. A
 * failure throws; the caller removes what was written (ingest queues it, re-embedding deletes it).
 */
export async function writeChunks(
  target: { collection: Collection; model: Embedder },
  doc: { agentId: number; documentId: number },
  chunks: Chunk[],
  onProgress: IngestProgress = () => {},
  known?: KnownVectors,
): Promise<void> {
  let writing: { promise: Promise<void>; done: number } | null = null;
  const settle = async () => {
    if (!writing) return;
    await writing.promise;
    onProgress({ stage: "write", done: writing.done, total: chunks.length });
    writing = null;
  };
  try {
    for (let i = 0; i < chunks.length; i += EMBED_SLICE) {
      const slice = chunks.slice(i, i + EMBED_SLICE);
      onProgress({ stage: "embed", done: i, total: chunks.length });
      const vectors = await embedSlice(target.model, slice, known);
      // The exact ranking's copy, searchable once the document is made ready (lib/db/chunk-vectors.ts).
      writeChunkVectors(doc.documentId, target.model.model, slice, vectors);
      await settle();
      const promise = addNotedChunks(target.collection, doc, slice, vectors);
      promise.catch(() => {}); // awaited by settle(); this only keeps it from counting as unhandled meanwhile
      writing = { promise, done: i + slice.length };
    }
    await settle();
  } catch (err) {
    // An add still in flight must finish before the caller removes what was written.
    await (writing as { promise: Promise<void> } | null)?.promise.catch(() => {});
    throw err;
  }
}
