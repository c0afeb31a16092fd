import "server-only";
import { notFound } from "../core/errors";
import { DEFAULT_CHUNK_STRATEGY, indexedText, type Chunk, type ChunkStrategy } from "../core/chunking";
import type { Metadata } from "../core/metadata";
import { parseOcrRecord, type OcrRecord } from "../extract/ocr-record";
import { parsePageStarts, pagesOf } from "../core/pages";
import { db, groupedWrite, now } from "./client";
import { enqueueCleanup, pendingVectorsOf } from "./vector-cleanup";
import { documentChunks, insertChunks, insertChunksOff, type OffChunk, type StoredChunk } from "./chunks";
import { deleteChunkVectors } from "./chunk-vectors";
import { indexDocumentChunks, unindexDocument } from "./keyword-index";
import { metadataOf } from "./metadata";

/** `draft`: a version staged in a draft (lib/db/drafts.ts), served only once the draft is published. */
export type DocumentStatus = "indexing" | "ready" | "failed" | "draft";

export interface DocumentRow {
  id: number;
  agent_id: number;
  filename: string;
  type: string;
  sha256: string;
  bytes: number;
  chunk_size: number;
  chunk_overlap: number;
  chunk_strategy: ChunkStrategy;
  chunk_count: number;
  status: DocumentStatus;
  error: string | null;
  embedding_model: string;
  /** The page it was fetched from (lib/sources/), and when that page was last fetched; null for uploads. */
  source_url: string | null;
  fetched_at: string | null;
  created_at: string;
  updated_at: string;
  /** 0 when an editor switched the whole document off: its chunks are kept, in no index (lib/ingest/curate.ts). */
  enabled: number;
  /** What the last replace or re-chunk could not carry over of the document's curation; null when all was. */
  curation_note: string | null;
  /** The draft this version is staged in (lib/db/drafts.ts); null for what the agent serves. */
  draft_id: number | null;
  /** In a draft: the served version it replaces (null: a new name). */
  base_id: number | null;
  /** The team's own keys (lib/db/metadata.ts); the built-in fields are the columns above. */
  metadata: Metadata;
  /** The image, or the PDF pages, whose text OCR read, with its confidence; null when none was. */
  ocr: OcrRecord | null;
}

/** A document with its text, and for a PDF where each page starts in that text (lib/core/pages.ts; null without pages). */
export type DocumentWithText = DocumentRow & { text: string; page_starts: number[] | null };

/**
 * A version being retired, read in the transaction that retires it: its row, and what each of its
 * chunks was indexed by (its text and questions), which go with the row, for the query-weighting
 * counts to take exactly those out (lib/retrieval/corpus-stats.ts).
 */
export type RetiredDocument = DocumentWithText & { indexed: string[] };

/** A document's row and indexed chunk texts, as it is retired (run before its row is deleted). */
export function retiredDocument(id: number): RetiredDocument {
  const row = parsedRow(db().prepare("SELECT * FROM documents WHERE id = ?").get(id) as Stored<DocumentWithText>);
  return { ...row, indexed: documentChunks(id).map(indexedText) };
}

const COLUMNS = `id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_strategy, chunk_count,
  status, error, embedding_model, source_url, fetched_at, created_at, updated_at, enabled, curation_note, draft_id, base_id, metadata, ocr`;

/** A row as read from SQLite: its metadata, OCR record and page starts still JSON. */
export type Stored<T extends { metadata: Metadata }> = Omit<T, "metadata" | "ocr" | "page_starts"> & {
  metadata: string;
  ocr?: string | null;
  page_starts?: string | null;
};

/** A row with its metadata, OCR record and page starts parsed. */
export function parsedRow<T extends { metadata: Metadata }>(row: Stored<T>): T;
export function parsedRow<T extends { metadata: Metadata }>(row: Stored<T> | undefined): T | undefined;
export function parsedRow<T extends { metadata: Metadata }>(row: Stored<T> | undefined): T | undefined {
  return (
    row &&
    ({
      ...row,
      metadata: metadataOf(row.metadata),
      ...("ocr" in row ? { ocr: parseOcrRecord(row.ocr ?? null) } : {}),
      ...("page_starts" in row ? { page_starts: parsePageStarts(row.page_starts) } : {}),
    } as T)
  );
}

export function listDocuments(agentId: number): DocumentRow[] {
  return (
    (
      db()
        // A draft's versions are listed with their draft (lib/db/drafts.ts), not among what the agent serves.
        .prepare(`SELECT ${COLUMNS} FROM documents WHERE agent_id = ? AND draft_id IS NULL ORDER BY created_at DESC, id DESC`)
        .all(agentId) as Stored<DocumentRow>[]
    ).map((r) => parsedRow(r))
  );
}

/**
 * How long the text of each of the agent's ready documents is, without reading the texts into
 * the app. SQLite counts characters (code points); JavaScript, and so the chunker, counts a
 * character outside the BMP (an emoji) as two.
 */
export function readyTextLengths(agentId: number): Map<number, number> {
  const rows = db().prepare("SELECT id, length(text) AS chars FROM documents WHERE agent_id = ? AND status = 'ready'").all(agentId) as {
    id: number;
    chars: number | null;
  }[];
  return new Map(rows.map((r) => [r.id, r.chars ?? 0]));
}

/** A document of this agent only: another agent's id is reported as not found. */
export function findDocument(agentId: number, id: number): DocumentWithText | undefined {
  return parsedRow(
    db().prepare("SELECT * FROM documents WHERE id = ? AND agent_id = ?").get(id, agentId) as Stored<DocumentWithText> | undefined,
  );
}

export function getDocument(agentId: number, id: number): DocumentWithText {
  const row = findDocument(agentId, id);
  if (!row) throw notFound(`Document ${id} of agent ${agentId}`);
  return row;
}

/**
 * The duplicate check every upload makes. Left to itself SQLite picks the (agent, status) index
 * and reads every ready document of the agent, text included: a cost per upload that grew
 * with the agent, quadratic over a bulk import. The (agent, sha256) index finds it directly.
 */
export const READY_BY_SHA = `SELECT ${COLUMNS} FROM documents INDEXED BY documents_sha WHERE agent_id = ? AND sha256 = ? AND status = 'ready' LIMIT 1`;

export function findReadyBySha(agentId: number, sha256: string): DocumentRow | undefined {
  return parsedRow(db().prepare(READY_BY_SHA).get(agentId, sha256) as Stored<DocumentRow> | undefined);
}

/**
 * Inserts a document (status `indexing`) and its chunks in one transaction. Its chunk count is
 * what searches allow for while it is indexing.
 */
/** What a version of a curated document carries beyond its indexed chunks (lib/ingest/curate.ts). */
export interface VersionCuration {
  /** False: the whole document is switched off (every chunk in `off`). */
  enabled?: boolean;
  /** Its chunks in no index, with their places among all its chunks. */
  off?: OffChunk[];
  /** The original texts of chunks an editor deleted. */
  removed?: string[];
  /** The chunks of the version a curation change replaced, as JSON, for undo. */
  undo?: string | null;
  /** What a replace or re-chunk could not carry over. */
  note?: string | null;
  /** The draft the version is staged in, and the served version it replaces (null: a new name). */
  draft?: { id: number; baseId: number | null };
}

export const insertDocument = (
  d: Pick<
    DocumentWithText,
    "agent_id" | "filename" | "type" | "sha256" | "bytes" | "chunk_size" | "chunk_overlap" | "text" | "embedding_model"
  > & {
    chunk_strategy?: ChunkStrategy;
    source_url?: string | null;
    metadata?: Metadata;
    ocr?: OcrRecord | null;
    page_starts?: number[] | null;
  },
  chunks: Chunk[] | StoredChunk[],
  version: VersionCuration = {},
): number =>
  db().transaction(() => {
    const t = now();
    const { lastInsertRowid } = db()
      .prepare(
        `INSERT INTO documents (agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_strategy, chunk_count, status,
           text, embedding_model, source_url, fetched_at, created_at, updated_at, enabled, removed, undo, curation_note, draft_id, base_id,
           metadata, ocr, page_starts)
         VALUES (@agent_id, @filename, @type, @sha256, @bytes, @chunk_size, @chunk_overlap, @chunk_strategy, @chunk_count, 'indexing',
           @text, @embedding_model, @source_url, @fetched_at, @t, @t, @enabled, @removed, @undo, @curation_note, @draft_id, @base_id,
           @metadata, @ocr, @page_starts)`,
      )
      .run({
        chunk_strategy: DEFAULT_CHUNK_STRATEGY,
        ...d,
        source_url: d.source_url ?? null,
        fetched_at: d.source_url ? t : null,
        chunk_count: chunks.length,
        t,
        enabled: version.enabled === false ? 0 : 1,
        removed: version.removed?.length ? JSON.stringify(version.removed) : null,
        undo: version.undo ?? null,
        curation_note: version.note ?? null,
        draft_id: version.draft?.id ?? null,
        base_id: version.draft?.baseId ?? null,
        metadata: JSON.stringify(d.metadata ?? {}),
        ocr: d.ocr ? JSON.stringify(d.ocr) : null,
        page_starts: d.page_starts?.length ? JSON.stringify(d.page_starts) : null,
      });
    const id = Number(lastInsertRowid);
    const pages = (c: { start: number; end: number }) => pagesOf(d.page_starts, c.start, c.end);
    insertChunks(id, chunks, pages);
    if (version.off?.length) insertChunksOff(id, version.off, chunks.length, pages);
    return id;
  })();

/**
 * Makes an indexed document searchable and, in the same transaction, retires the older
 * versions of its filename (ready or failed; never one still indexing), queueing their
 * vectors for removal. Null when the row is gone (deleted while it was indexing). The
 * transaction is shared with the other documents made ready in the same turn of the event loop
 * (see groupedWrite): the keyword index gets all their chunks in one write.
 */
export const commitReady = (agentId: number, id: number, filename: string, chunkCount: number) =>
  groupedWrite(
    () => markReady(agentId, id, filename, chunkCount),
    (done) => {
      if (done) indexDocumentChunks(db(), agentId, id);
    },
  );

/** commitReady's rows, without the keyword index; run inside a transaction. */
function markReady(agentId: number, id: number, filename: string, chunkCount: number): { retired: RetiredDocument[] } | null {
  const { changes } = db()
    .prepare("UPDATE documents SET status = 'ready', error = NULL, chunk_count = ?, updated_at = ? WHERE id = ? AND status = 'indexing'")
    .run(chunkCount, now(), id);
  if (changes !== 1) return null;
  const retired = (
    db()
      .prepare("SELECT id FROM documents WHERE agent_id = ? AND filename = ? AND id < ? AND status IN ('ready', 'failed')")
      .all(agentId, filename, id) as { id: number }[]
  ).map((r) => retiredDocument(r.id));
  for (const old of retired) {
    unindexDocument(db(), agentId, old.id);
    db().prepare("DELETE FROM documents WHERE id = ?").run(old.id);
    if (old.status === "ready") enqueueCleanup(agentId, old.id, old.chunk_count, "replaced by a newer version");
  }
  return { retired };
}

/**
 * Marks a document failed and queues whatever vectors it wrote for removal, in one transaction.
 * A write of a failed ingest may still reach Chroma (its request timed out), so the removal is
 * checked again afterwards.
 */
export const markFailed = (agentId: number, id: number, reason: string, vectors: number) =>
  db().transaction(() => {
    db()
      .prepare("UPDATE documents SET status = 'failed', error = ?, chunk_count = 0, updated_at = ? WHERE id = ? AND agent_id = ?")
      .run(reason, now(), id, agentId);
    unindexDocument(db(), agentId, id);
    deleteChunkVectors(id, {});
    enqueueCleanup(agentId, id, vectors, "ingest failed", { lateWrites: true });
  })();

/**
 * Deletes the row and queues its vectors for removal, in one transaction; `lateWrites` when a
 * write of them may still reach Chroma (a failed ingest's).
 */
export const deleteDocumentRow = (agentId: number, id: number, reason = "document deleted", opts: { lateWrites?: boolean } = {}) =>
  db().transaction(() => {
    const row = db().prepare("SELECT chunk_count FROM documents WHERE id = ? AND agent_id = ?").get(id, agentId) as
      { chunk_count: number } | undefined;
    if (!row) return;
    unindexDocument(db(), agentId, id);
    db().prepare("DELETE FROM documents WHERE id = ? AND agent_id = ?").run(id, agentId);
    enqueueCleanup(agentId, id, row.chunk_count, reason, opts);
  })();

/**
 * How many of the agent's vectors in Chroma may belong to no ready document (indexing, failed
 * or removed ones not cleaned up yet): a search asks Chroma for that many more and drops them.
 */
export function hiddenVectorCount(agentId: number): number {
  const row = db()
    .prepare("SELECT COALESCE(SUM(chunk_count), 0) AS n FROM documents WHERE agent_id = ? AND status IN ('indexing', 'draft')")
    .get(agentId) as { n: number };
  return row.n + pendingVectorsOf(agentId);
}

/** Models the agent's ready documents were embedded with. */
export function embeddingModelsInUse(agentId?: number): string[] {
  const rows = (
    agentId === undefined
      ? db().prepare("SELECT DISTINCT embedding_model FROM documents WHERE status = 'ready'").all()
      : db().prepare("SELECT DISTINCT embedding_model FROM documents WHERE status = 'ready' AND agent_id = ?").all(agentId)
  ) as { embedding_model: string }[];
  return rows.map((r) => r.embedding_model);
}

export function agentChunkCount(agentId: number): number {
  const row = db()
    .prepare("SELECT COALESCE(SUM(chunk_count), 0) AS n FROM documents WHERE agent_id = ? AND status = 'ready'")
    .get(agentId) as { n: number };
  return row.n;
}

/**
 * Marks documents left `indexing` failed with `reason` and queues their vectors for removal, in
 * one transaction: all of them (start-up recovery) or the given ids (an audit's stuck ones).
 */
export function failIndexingDocuments(reason: string, ids?: number[]): { id: number; agent_id: number }[] {
  return db().transaction(() => {
    const rows = (
      db().prepare("SELECT id, agent_id, chunk_count FROM documents WHERE status = 'indexing'").all() as {
        id: number;
        agent_id: number;
        chunk_count: number;
      }[]
    ).filter((d) => !ids || ids.includes(d.id));
    const fail = db().prepare(
      "UPDATE documents SET status = 'failed', chunk_count = 0, error = ?, updated_at = ? WHERE id = ? AND status = 'indexing'",
    );
    for (const doc of rows) {
      fail.run(reason, now(), doc.id);
      deleteChunkVectors(doc.id, {});
      // The stopped server may have left a write on its way to a Chroma that outlived it.
      enqueueCleanup(doc.agent_id, doc.id, doc.chunk_count, "ingest interrupted", { lateWrites: true });
    }
    return rows.map(({ id, agent_id }) => ({ id, agent_id }));
  })();
}

export function indexingDocumentIds(): number[] {
  return (db().prepare("SELECT id FROM documents WHERE status = 'indexing'").all() as { id: number }[]).map((r) => r.id);
}

/** Every document's status and counts, without text: what the audit compares with Chroma. */
export function documentStates(): Pick<
  DocumentRow,
  "id" | "agent_id" | "filename" | "status" | "chunk_count" | "embedding_model" | "updated_at"
>[] {
  return db().prepare("SELECT id, agent_id, filename, status, chunk_count, embedding_model, updated_at FROM documents").all() as never;
}

/** What the chunks of an agent's ready documents of one model were made from (corpus statistics). */
export function readyDocumentKeys(
  agentId: number,
  model: string,
): Pick<DocumentRow, "id" | "sha256" | "chunk_size" | "chunk_overlap" | "chunk_strategy">[] {
  return db()
    .prepare(
      "SELECT id, sha256, chunk_size, chunk_overlap, chunk_strategy FROM documents WHERE agent_id = ? AND status = 'ready' AND embedding_model = ?",
    )
    .all(agentId, model) as never;
}

/** Agents with ready documents of this model, the most recently changed first. */
export function agentsByLatestChange(model: string, limit: number): number[] {
  const rows = db()
    .prepare(
      `SELECT agent_id FROM documents WHERE status = 'ready' AND embedding_model = ?
       GROUP BY agent_id ORDER BY MAX(updated_at) DESC LIMIT ?`,
    )
    .all(model, limit) as { agent_id: number }[];
  return rows.map((r) => r.agent_id);
}

/** Ready documents embedded with another model than `model` (all agents, or one). */
export function documentsOfOtherModels(
  model: string,
  agentId?: number,
): Pick<DocumentRow, "id" | "agent_id" | "filename" | "embedding_model" | "chunk_count">[] {
  const sql = `SELECT id, agent_id, filename, embedding_model, chunk_count FROM documents
    WHERE status = 'ready' AND embedding_model != ? ${agentId === undefined ? "" : "AND agent_id = ?"}
    ORDER BY agent_id, id`;
  return db()
    .prepare(sql)
    .all(...(agentId === undefined ? [model] : [model, agentId])) as never;
}

/**
 * Switches a re-embedded document to its new model, only if the row is still the ready one that
 * was read (not deleted or replaced meanwhile). False when it was not switched.
 */
export function switchEmbeddingModel(
  doc: { id: number; agent_id: number; embedding_model: string },
  model: string,
  chunkCount: number,
): boolean {
  return db().transaction(() => {
    const { changes } = db()
      .prepare(
        `UPDATE documents SET embedding_model = ?, chunk_count = ?, updated_at = ?
         WHERE id = ? AND agent_id = ? AND status = 'ready' AND embedding_model = ?`,
      )
      .run(model, chunkCount, now(), doc.id, doc.agent_id, doc.embedding_model);
    // The exact ranking's copy of the old model goes with the switch.
    if (changes === 1) deleteChunkVectors(doc.id, { keep: model });
    return changes === 1;
  })();
}

/**
 * A value that changes whenever the set of the agent's ready documents of this model changes:
 * their count and the sum of their ids. Ids only grow and never return, so documents that
 * replace others always raise the sum; read from an index, without the rows.
 */
export function readySignature(agentId: number, model: string): string {
  const row = db()
    .prepare("SELECT COUNT(*) AS n, TOTAL(id) AS s FROM documents WHERE agent_id = ? AND status = 'ready' AND embedding_model = ?")
    .get(agentId, model) as { n: number; s: number };
  return `${row.n}:${row.s}`;
}

/** A value that changes whenever the set of the agent's ready documents (of any model) does: see readySignature. */
export function readyStamp(agentId: number): string {
  const row = db().prepare("SELECT COUNT(*) AS n, TOTAL(id) AS s FROM documents WHERE agent_id = ? AND status = 'ready'").get(agentId) as {
    n: number;
    s: number;
  };
  return `${row.n}:${row.s}`;
}

/**
 * The agent's ready documents of `model` with their chunk counts, in id order: the chunk ids a
 * query of the agent may return (lib/retrieval/id-scope.ts).
 */
export function readyChunkCounts(agentId: number, model: string): { id: number; chunk_count: number }[] {
  return db()
    .prepare("SELECT id, chunk_count FROM documents WHERE agent_id = ? AND status = 'ready' AND embedding_model = ? ORDER BY id")
    .all(agentId, model) as never;
}

/** The pages these documents of the agent were fetched from (document id → URL); uploads are left out. */
export function sourceUrlsOf(agentId: number, ids: number[]): Record<number, string> {
  if (ids.length === 0) return {};
  const rows = db()
    .prepare(
      "SELECT id, source_url FROM documents WHERE agent_id = ? AND source_url IS NOT NULL AND id IN (SELECT value FROM json_each(?))",
    )
    .all(agentId, JSON.stringify([...new Set(ids)])) as { id: number; source_url: string }[];
  return Object.fromEntries(rows.map((r) => [r.id, r.source_url]));
}

/** The agent's ready documents in id order (the order an agent file lists them in), without text. */
export function readyDocumentIds(agentId: number): { id: number; chunk_count: number }[] {
  return db().prepare("SELECT id, chunk_count FROM documents WHERE agent_id = ? AND status = 'ready' ORDER BY id").all(agentId) as never;
}

/** An imported document keeps the date it was first added on the other instance (lib/transfer/import.ts). */
export function setDocumentCreatedAt(agentId: number, id: number, createdAt: string): void {
  db().prepare("UPDATE documents SET created_at = ? WHERE id = ? AND agent_id = ?").run(createdAt, id, agentId);
}

/** The ready version of a filename among an agent's documents, with its text; undefined when there is none. */
export function readyVersionOf(agentId: number, filename: string): DocumentWithText | undefined {
  const row = db()
    .prepare(`SELECT ${COLUMNS}, text FROM documents WHERE agent_id = ? AND filename = ? AND status = 'ready' ORDER BY id DESC LIMIT 1`)
    .get(agentId, filename) as Stored<DocumentWithText> | undefined;
  return parsedRow(row);
}

/** A document version's deleted chunk texts and the curation its last change replaced (JSON, for undo). */
export function documentCurationExtras(id: number): { removed: string[]; undo: string | null } {
  const row = db().prepare("SELECT removed, undo FROM documents WHERE id = ?").get(id) as
    { removed: string | null; undo: string | null } | undefined;
  return { removed: row?.removed ? (JSON.parse(row.removed) as string[]) : [], undo: row?.undo ?? null };
}

/** Which of these documents (any status) were embedded with `model`, in id order. */
export function documentsOfModel(ids: number[], model: string): number[] {
  return (
    db()
      .prepare("SELECT id FROM documents WHERE id IN (SELECT value FROM json_each(?)) AND embedding_model = ? ORDER BY id")
      .all(JSON.stringify(ids), model) as { id: number }[]
  ).map((r) => r.id);
}
