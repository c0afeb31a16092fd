import "server-only";
import type { Chunk } from "../core/chunking";
import { db } from "./client";

export interface ChunkRow {
  document_id: number;
  chunk_index: number;
  /** Character offsets into the document's extracted text, end exclusive. */
  start: number;
  end: number;
  text: string;
}

/** A chunk's text with the name of the ready document it belongs to. */
export interface ReadyChunk extends ChunkRow {
  filename: string;
}

export const chunkKey = (documentId: number, chunkIndex: number) => `${documentId}#${chunkIndex}`;

/** Writes a document's chunks (called inside the transaction that inserts the document). */
export function insertChunks(documentId: number, chunks: { index: number; start: number; end: number; text: string }[]): void {
  const insert = db().prepare("INSERT INTO chunks (document_id, chunk_index, start, end, text) VALUES (?, ?, ?, ?, ?)");
  for (const c of chunks) insert.run(documentId, c.index, c.start, c.end, c.text);
}

/**
 * The given chunks of one agent's ready documents, keyed by chunkKey: what search shows for the
 * hits Chroma returned. A chunk of a document that is not ready (indexing, failed, removed) or
 * of another agent is absent, so the result doubles as the visibility check.
 */
export function readyChunks(agentId: number, keys: { document_id: number; chunk_index: number }[]): Map<string, ReadyChunk> {
  const found = new Map<string, ReadyChunk>();
  if (keys.length === 0) return found;
  const read = db().prepare(
    `SELECT c.document_id, c.chunk_index, c.start, c.end, c.text, d.filename
     FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.document_id = ? AND c.chunk_index = ? AND d.agent_id = ? AND d.status = 'ready'`,
  );
  for (const k of keys) {
    const key = chunkKey(k.document_id, k.chunk_index);
    if (found.has(key)) continue;
    const row = read.get(k.document_id, k.chunk_index, agentId) as ReadyChunk | undefined;
    if (row) found.set(key, row);
  }
  return found;
}

/** Which of the given documents are ready documents of this agent. */
export function readyAmong(agentId: number, documentIds: Iterable<number>): Set<number> {
  const ids = [...new Set(documentIds)];
  const ready = new Set<number>();
  const check = db().prepare("SELECT 1 FROM documents WHERE id = ? AND agent_id = ? AND status = 'ready'");
  for (const id of ids) if (check.get(id, agentId)) ready.add(id);
  return ready;
}

/** One document's chunks in order (the document's agent is checked by the caller). */
export function documentChunks(documentId: number): ChunkRow[] {
  return db()
    .prepare("SELECT document_id, chunk_index, start, end, text FROM chunks WHERE document_id = ? ORDER BY chunk_index")
    .all(documentId) as ChunkRow[];
}

/** The chunk indexes of documents, to read their vectors by id. */
export function chunkIndexes(documentIds: number[]): { document_id: number; chunk_index: number }[] {
  const read = db().prepare("SELECT document_id, chunk_index FROM chunks WHERE document_id = ? ORDER BY chunk_index");
  return documentIds.flatMap((id) => read.all(id) as { document_id: number; chunk_index: number }[]);
}

/** One document's chunks as they were indexed, in the chunker's shape (document page and API). */
export function storedChunks(documentId: number): Chunk[] {
  return documentChunks(documentId).map((c) => ({ index: c.chunk_index, start: c.start, end: c.end, text: c.text }));
}
