import "server-only";
import type { Chunk } from "../core/chunking";
import type { PageRange } from "../core/pages";
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
  /** The questions attached to the chunk (a JSON array), null without any. */
  questions: string | null;
  /** Its table's header, when it holds rows without it (lib/core/tables.ts); null without one. */
  context: string | null;
  /** The PDF pages it lies on (lib/core/pages.ts); null for a document without pages. */
  page_first: number | null;
  page_last: number | null;
}

/** A row's pages as a range; null without. */
export const pageRangeOf = (r: { page_first: number | null; page_last: number | null }): PageRange | null =>
  r.page_first === null || r.page_last === null ? null : { first: r.page_first, last: r.page_last };

/** The pages of a chunk's characters, given by the document being written (none without pages). */
export type ChunkPages = (c: { start: number; end: number }) => PageRange | null;
const noPages: ChunkPages = () => null;

export const chunkKey = (documentId: number, chunkIndex: number) => `${documentId}#${chunkIndex}`;

/**
 * A chunk's id as the API and the pages name it: kept by the chunk when a curation change writes
 * its document again (lib/ingest/curate.ts), so an edited chunk keeps its id. A chunk's own id is
 * its first version's document id times MAX_CHUNK_PLACES plus its place in that version.
 */
export const MAX_CHUNK_PLACES = 1_000_000;
export const ownChunkId = (documentId: number, place: number) => documentId * MAX_CHUNK_PLACES + place;

/** What a curated chunk carries beyond the chunker's fields (lib/db/migrations/025-chunk-curation.ts). */
export interface ChunkCuration {
  /** Its id, when it comes from an earlier version (ownChunkId otherwise). */
  uid?: number | null;
  /** Its place among all the version's chunks, switched off ones included (its index otherwise). */
  position?: number | null;
  /** The text before an editor changed it; '' for a chunk written by hand; null or absent when unedited. */
  original?: string | null;
}

export type StoredChunk = Chunk & ChunkCuration;

const questionsJson = (q: string[] | undefined) => (q?.length ? JSON.stringify(q) : null);

/** Writes a document's chunks (called inside the transaction that inserts the document). */
export function insertChunks(documentId: number, chunks: StoredChunk[], pagesOf: ChunkPages = noPages): void {
  const insert = db().prepare(
    `INSERT INTO chunks (document_id, chunk_index, start, end, text, uid, position, questions, original, context, page_first, page_last)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const c of chunks) {
    const pages = pagesOf(c);
    insert.run(
      documentId,
      c.index,
      c.start,
      c.end,
      c.text,
      c.uid ?? null,
      c.position ?? null,
      questionsJson(c.questions),
      c.original ?? null,
      c.context || null,
      pages?.first ?? null,
      pages?.last ?? null,
    );
  }
}

/**
 * Writes the chunks of a version that are in no index (switched off, or of a document switched
 * off), with the same transaction as insertChunks; `places` are their places among all chunks.
 */
export function insertChunksOff(documentId: number, chunks: OffChunk[], firstOwn: number, pagesOf: ChunkPages = noPages): void {
  const insert = db().prepare(
    `INSERT INTO chunks_off (document_id, position, uid, start, end, text, questions, original, enabled, context, page_first, page_last)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  chunks.forEach((c, k) => {
    const uid = c.uid ?? ownChunkId(documentId, firstOwn + k);
    const questions = questionsJson(c.questions);
    const pages = pagesOf(c);
    const flags = [c.original ?? null, c.enabled ? 1 : 0, c.context || null, pages?.first ?? null, pages?.last ?? null];
    insert.run(documentId, c.position, uid, c.start, c.end, c.text, questions, ...flags);
  });
}

/** A chunk of a version in no index; `enabled` when it is on and its document is off. */
export type OffChunk = Omit<StoredChunk, "index"> & { position: number; enabled: boolean };

/** One chunk of a version as an editor sees it: on or off, with its id and its curation. */
export interface CuratedChunk {
  id: number;
  /** Its index in the indexes; null while it is switched off. */
  index: number | null;
  start: number;
  end: number;
  text: string;
  questions: string[];
  original: string | null;
  enabled: boolean;
  /** Its table's header, when it holds rows without it; null without one. */
  context: string | null;
  /** The PDF pages it lies on; null for a document without pages and a chunk written by hand. */
  pages: PageRange | null;
}

interface CuratedRow {
  chunk_index: number | null;
  uid: number;
  start: number;
  end: number;
  text: string;
  questions: string | null;
  original: string | null;
  enabled: number;
  context: string | null;
  page_first: number | null;
  page_last: number | null;
}

/** All chunks of one document version in their order, on and off (the document's agent is checked by the caller). */
export function curatedChunks(documentId: number): CuratedChunk[] {
  const rows = db()
    .prepare(
      `SELECT chunk_index, COALESCE(uid, document_id * ${MAX_CHUNK_PLACES} + chunk_index) AS uid, start, end, text, questions, original,
         COALESCE(position, chunk_index) AS position, 1 AS enabled, context, page_first, page_last
       FROM chunks WHERE document_id = ?
       UNION ALL
       SELECT NULL, uid, start, end, text, questions, original, position, enabled, context, page_first, page_last
       FROM chunks_off WHERE document_id = ?
       ORDER BY position`,
    )
    .all(documentId, documentId) as CuratedRow[];
  return rows.map((r) => ({
    id: r.uid,
    index: r.chunk_index,
    start: r.start,
    end: r.end,
    text: r.text,
    questions: r.questions ? (JSON.parse(r.questions) as string[]) : [],
    original: r.original,
    enabled: r.enabled === 1,
    context: r.context,
    pages: pageRangeOf(r),
  }));
}

/**
 * The document version that holds the chunk with this id, among the agent's served documents
 * (and, given a draft, first among that draft's versions); undefined when none does. A version
 * that failed (a change whose write failed keeps its row) or is still being written is no holder.
 */
export function documentOfChunk(agentId: number, chunkId: number, draftId?: number): number | undefined {
  const own = { doc: Math.floor(chunkId / MAX_CHUNK_PLACES), index: chunkId % MAX_CHUNK_PLACES };
  const row = db()
    .prepare(
      `SELECT d.id FROM documents d WHERE d.agent_id = ? AND d.status IN ('ready', 'draft') AND (d.draft_id IS NULL OR d.draft_id = ?) AND d.id IN (
         SELECT document_id FROM chunks WHERE uid = ?
         UNION SELECT document_id FROM chunks WHERE uid IS NULL AND document_id = ? AND chunk_index = ?
         UNION SELECT document_id FROM chunks_off WHERE uid = ?)
       ORDER BY d.draft_id IS NOT NULL DESC, d.id DESC LIMIT 1`,
    )
    .get(agentId, draftId ?? -1, chunkId, own.doc, own.index, chunkId) as { id: number } | undefined;
  return row?.id;
}

/**
 * The given chunks of one agent's ready documents, keyed by chunkKey: what search shows for the
 * hits Chroma returned. A chunk of a document that is not ready (indexing, failed, removed) or
 * of another agent is absent, so the result doubles as the visibility check.
 */
export function readyChunks(
  agentId: number,
  keys: { document_id: number; chunk_index: number }[],
  /** Documents checked already (a draft's view admits its own versions): their chunks are read whatever their status. */
  checked = false,
): Map<string, ReadyChunk> {
  const found = new Map<string, ReadyChunk>();
  if (keys.length === 0) return found;
  const read = db().prepare(
    `SELECT c.document_id, c.chunk_index, c.start, c.end, c.text, c.questions, c.context, c.page_first, c.page_last, d.filename
     FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.document_id = ? AND c.chunk_index = ? AND d.agent_id = ? ${checked ? "" : "AND d.status = 'ready'"}`,
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
  // Many at once (a filter's matched documents): one statement over the list.
  if (ids.length > 32) {
    const rows = db()
      .prepare("SELECT id FROM documents WHERE id IN (SELECT value FROM json_each(?)) AND agent_id = ? AND status = 'ready'")
      .all(JSON.stringify(ids), agentId) as { id: number }[];
    for (const r of rows) ready.add(r.id);
    return ready;
  }
  const check = db().prepare("SELECT 1 FROM documents WHERE id = ? AND agent_id = ? AND status = 'ready'");
  for (const id of ids) if (check.get(id, agentId)) ready.add(id);
  return ready;
}

/** One document's indexed chunks in order, with what each is indexed by beyond its text (the document's agent is checked by the caller). */
export function documentChunks(documentId: number): (ChunkRow & { questions?: string[]; context?: string; pages?: PageRange })[] {
  const rows = db()
    .prepare(
      `SELECT document_id, chunk_index, start, end, text, questions, context, page_first, page_last
       FROM chunks WHERE document_id = ? ORDER BY chunk_index`,
    )
    .all(documentId) as (ChunkRow & {
    questions: string | null;
    context: string | null;
    page_first: number | null;
    page_last: number | null;
  })[];
  return rows.map(({ questions, context, page_first, page_last, ...c }) => {
    const pages = pageRangeOf({ page_first, page_last });
    return {
      ...c,
      ...(context ? { context } : {}),
      ...(questions ? { questions: JSON.parse(questions) as string[] } : {}),
      ...(pages ? { pages } : {}),
    };
  });
}

/** The chunk indexes of documents, to read their vectors by id. */
export function chunkIndexes(documentIds: number[]): { document_id: number; chunk_index: number }[] {
  const read = db().prepare("SELECT document_id, chunk_index FROM chunks WHERE document_id = ? ORDER BY chunk_index");
  return documentIds.flatMap((id) => read.all(id) as { document_id: number; chunk_index: number }[]);
}

/** One document's chunks as they were indexed, in the chunker's shape (document page and API). */
export function storedChunks(documentId: number): Chunk[] {
  return documentChunks(documentId).map((c) => ({
    index: c.chunk_index,
    start: c.start,
    end: c.end,
    text: c.text,
    ...(c.context ? { context: c.context } : {}),
    ...(c.questions ? { questions: c.questions } : {}),
  }));
}
