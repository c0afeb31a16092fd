import "server-only";
import type { Collection } from "../vector-store/client";
import { agentVectors, collectionModel, parseChunkId, rewriteVectors, upsertChunks, type StoredVector } from "../vector-store/chunks";
import { noteVectorWrite } from "../db/index-check";
import type { Chunk } from "../core/chunking";

/**
 * The index's upkeep writing chunks again (the audit's repair, the check after a crash), each
 * write noted first in the log of vector writes (lib/db/index-check.ts) as ingest notes its own,
 * so a crash between the note and the write leaves the note. `byCheck`: the check after a crash
 * writes them and checks them itself, so its follow window does not make their document suspect.
 */

function note(collection: Collection, agentId: number, perDocument: Map<number, number>, byCheck: boolean): void {
  for (const [documentId, chunks] of perDocument)
    noteVectorWrite({ collection: collection.name, model: collectionModel(collection), agentId, documentId, chunks }, !byCheck);
}

/**
 * Writes some vectors of one agent again with the same ids, embeddings and metadata: removed,
 * then added, so the index inserts each one afresh. Returns what was written (ids not found are
 * skipped). If the add fails after the delete, the audit reports those chunks missing.
 */
export async function readdVectors(
  collection: Collection,
  agentId: number,
  ids: string[],
  { byCheck = false } = {},
): Promise<StoredVector[]> {
  const found = await agentVectors(collection, agentId, ids);
  if (found.length === 0) return [];
  const perDocument = new Map<number, number>();
  for (const v of found) {
    const key = parseChunkId(v.id);
    if (key) perDocument.set(key.document_id, (perDocument.get(key.document_id) ?? 0) + 1);
  }
  note(collection, agentId, perDocument, byCheck);
  await rewriteVectors(collection, agentId, found);
  return found;
}

/** Writes some chunks of a document again from the app's copy of their vectors, as an upsert. */
export async function upsertNotedChunks(
  collection: Collection,
  doc: { agentId: number; documentId: number },
  chunks: Pick<Chunk, "index">[],
  embeddings: number[][],
  { byCheck = false } = {},
): Promise<void> {
  note(collection, doc.agentId, new Map([[doc.documentId, chunks.length]]), byCheck);
  await upsertChunks(collection, doc, chunks, embeddings);
}
