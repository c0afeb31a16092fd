import "server-only";
import { db } from "./client";
import { chunkKey } from "./chunks";

/**
 * The exact ranking's copy of chunk vectors (lib/retrieval/exact.ts). Chroma stays the store of
 * record; this copy is written as ingest writes Chroma, while the document is still indexing, so
 * the transaction that makes a document ready makes its copy searchable, and its row's deletion
 * (replace, delete, failure) takes the copy with it (ON DELETE CASCADE). A row holds a run of
 * consecutive chunks of one document, as float32 in the order the embedder returned them.
 */

export interface VectorRun {
  document_id: number;
  first_chunk: number;
  count: number;
  dimension: number;
  vectors: Float32Array;
}

function toBlob(vectors: number[][]): Buffer {
  const dim = vectors[0]?.length ?? 0;
  const out = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => out.set(v, i * dim));
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

function fromBlob(blob: Buffer): Float32Array {
  // Each row's blob is a Buffer of its own: viewed in place when aligned for float32, else copied.
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/**
 * Most chunks one stored run holds. A row stays a few megabytes (4 MB at 1,024 dimensions), far
 * below SQLite's largest blob (1,000,000,000 bytes, which one run of a whole 250,000-chunk
 * document would pass), and a reader of one document goes a row at a time
 * (`documentVectorRuns`) with flat memory, whatever the document's length.
 */
export const MAX_RUN_CHUNKS = 1_024;

/**
 * Stores vectors of chunks of one document, in runs of consecutive chunk indexes of at most
 * MAX_RUN_CHUNKS. Written again (a retried slice), a run replaces the one it overlaps at the
 * same first chunk.
 */
export function writeChunkVectors(documentId: number, model: string, chunks: { index: number }[], vectors: number[][]): void {
  if (chunks.length === 0) return;
  const insert = db().prepare(
    // A document deleted while it was being written is skipped; its ingest learns it at commit.
    `INSERT OR REPLACE INTO chunk_vectors (document_id, model, first_chunk, count, dimension, vectors)
     SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ?)`,
  );
  db().transaction(() => {
    let start = 0;
    for (let i = 1; i <= chunks.length; i++) {
      if (i < chunks.length && chunks[i].index === chunks[i - 1].index + 1 && i - start < MAX_RUN_CHUNKS) continue;
      const run = vectors.slice(start, i);
      insert.run(documentId, model, chunks[start].index, run.length, run[0].length, toBlob(run), documentId);
      start = i;
    }
  })();
}

/** Replaces every stored vector of a document of one model (a copy made again from Chroma), in one transaction. */
export function replaceChunkVectors(documentId: number, model: string, chunks: { index: number }[], vectors: number[][]): void {
  db().transaction(() => {
    deleteChunkVectors(documentId, { model });
    writeChunkVectors(documentId, model, chunks, vectors);
  })();
}

/** Drops a document's copies of one model (a failed re-embedding), or of every model but `keep`. */
export function deleteChunkVectors(documentId: number, opts: { model?: string; keep?: string }): void {
  if (opts.model !== undefined) db().prepare("DELETE FROM chunk_vectors WHERE document_id = ? AND model = ?").run(documentId, opts.model);
  else
    db()
      .prepare("DELETE FROM chunk_vectors WHERE document_id = ? AND model != ?")
      .run(documentId, opts.keep ?? "");
}

/** The agent's ready documents of `model`, with how many of their chunks have a stored vector. */
export function readyVectorCoverage(agentId: number, model: string): { document_id: number; chunk_count: number; stored: number }[] {
  return db()
    .prepare(
      `SELECT d.id AS document_id, d.chunk_count,
              (SELECT COALESCE(SUM(v.count), 0) FROM chunk_vectors v WHERE v.document_id = d.id AND v.model = d.embedding_model) AS stored
       FROM documents d WHERE d.agent_id = ? AND d.status = 'ready' AND d.embedding_model = ? ORDER BY d.id`,
    )
    .all(agentId, model) as never;
}

/** Given documents of `model` (any status: a draft's versions), with how many of their chunks have a stored vector, in id order. */
export function vectorCoverage(documentIds: number[], model: string): { document_id: number; chunk_count: number; stored: number }[] {
  return db()
    .prepare(
      `SELECT d.id AS document_id, d.chunk_count,
              (SELECT COALESCE(SUM(v.count), 0) FROM chunk_vectors v WHERE v.document_id = d.id AND v.model = d.embedding_model) AS stored
       FROM documents d WHERE d.id IN (SELECT value FROM json_each(?)) AND d.embedding_model = ? ORDER BY d.id`,
    )
    .all(JSON.stringify(documentIds), model) as never;
}

/** Ready documents (all agents) whose stored vectors do not cover their chunks: what start-up copies from Chroma. */
export function documentsWithoutVectors(
  limit: number,
  model?: string,
): { id: number; agent_id: number; chunk_count: number; embedding_model: string }[] {
  return db()
    .prepare(
      `SELECT d.id, d.agent_id, d.chunk_count, d.embedding_model FROM documents d
       WHERE d.status = 'ready' AND (? IS NULL OR d.embedding_model = ?) AND d.chunk_count !=
         (SELECT COALESCE(SUM(v.count), 0) FROM chunk_vectors v WHERE v.document_id = d.id AND v.model = d.embedding_model)
       ORDER BY d.id LIMIT ?`,
    )
    .all(model ?? null, model ?? null, limit) as never;
}

/** How many ready documents lack a full copy (health and the audit). */
export function documentsWithoutVectorsCount(): number {
  return (
    db()
      .prepare(
        `SELECT COUNT(*) AS n FROM documents d WHERE d.status = 'ready' AND d.chunk_count !=
           (SELECT COALESCE(SUM(v.count), 0) FROM chunk_vectors v WHERE v.document_id = d.id AND v.model = d.embedding_model)`,
      )
      .get() as { n: number }
  ).n;
}

/** The stored runs of some documents of one model, in document and chunk order. */
export function readVectorRuns(documentIds: number[], model: string): VectorRun[] {
  const out: VectorRun[] = [];
  // One statement per page of documents (a fixed number of placeholders, so it is compiled once).
  const PAGE = 50;
  const read = db().prepare(
    `SELECT document_id, first_chunk, count, dimension, vectors FROM chunk_vectors
     WHERE model = ? AND document_id IN (${Array(PAGE).fill("?").join(", ")}) ORDER BY document_id, first_chunk`,
  );
  for (let i = 0; i < documentIds.length; i += PAGE) {
    const page = documentIds.slice(i, i + PAGE);
    const ids = [...page, ...Array(PAGE - page.length).fill(-1)];
    for (const r of read.all(model, ...ids) as (Omit<VectorRun, "vectors"> & { vectors: Buffer })[])
      out.push({ ...r, vectors: fromBlob(r.vectors) });
  }
  return out;
}

/**
 * The stored vectors of the given chunks (chunkKey to the vector), reading only the runs that hold
 * them; a chunk without a copy is left out.
 */
export function chunkVectorsOf(chunks: { document_id: number; chunk_index: number }[], model: string): Map<string, Float32Array> {
  const read = db().prepare(
    `SELECT first_chunk, count, dimension, vectors FROM chunk_vectors
     WHERE document_id = ? AND model = ? AND first_chunk <= ? ORDER BY first_chunk DESC LIMIT 1`,
  );
  const out = new Map<string, Float32Array>();
  const byDocument = new Map<number, number[]>();
  for (const c of chunks) byDocument.set(c.document_id, [...(byDocument.get(c.document_id) ?? []), c.chunk_index]);
  for (const [documentId, indexes] of byDocument) {
    let run: { first_chunk: number; count: number; dimension: number; vectors: Float32Array } | null = null;
    for (const i of indexes.sort((a, b) => a - b)) {
      if (!run || i >= run.first_chunk + run.count) {
        const row = read.get(documentId, model, i) as
          { first_chunk: number; count: number; dimension: number; vectors: Buffer } | undefined;
        run = row ? { ...row, vectors: fromBlob(row.vectors) } : null;
      }
      if (run && i >= run.first_chunk && i < run.first_chunk + run.count) {
        const at = (i - run.first_chunk) * run.dimension;
        out.set(chunkKey(documentId, i), run.vectors.subarray(at, at + run.dimension));
      }
    }
  }
  return out;
}

/**
 * One document's stored runs of one model in chunk order, `runsPerRead` rows a read: a document
 * of any length is read with flat memory (runs hold at most MAX_RUN_CHUNKS chunks; older copies
 * may hold longer ones). Each read is a statement of its own, so a document removed or written
 * again between two reads is seen as it is at each.
 */
export function* documentVectorRuns(documentId: number, model: string, runsPerRead = 4): Generator<VectorRun> {
  const read = db().prepare(
    `SELECT document_id, first_chunk, count, dimension, vectors FROM chunk_vectors
     WHERE document_id = ? AND model = ? AND first_chunk > ? ORDER BY first_chunk LIMIT ?`,
  );
  for (let after = -1; ;) {
    const rows = read.all(documentId, model, after, runsPerRead) as (Omit<VectorRun, "vectors"> & { vectors: Buffer })[];
    for (const r of rows) yield { ...r, vectors: fromBlob(r.vectors) };
    if (rows.length < runsPerRead) return;
    after = rows[rows.length - 1]!.first_chunk;
  }
}

/** How many chunks of one document have a stored vector of one model. */
export function storedVectorCount(documentId: number, model: string): number {
  return (
    db().prepare("SELECT COALESCE(SUM(count), 0) AS n FROM chunk_vectors WHERE document_id = ? AND model = ?").get(documentId, model) as {
      n: number;
    }
  ).n;
}

/** A document whose vectors a rebuild of `model`'s index copies: ready or indexing, with a copy here or of that model. */
export interface RebuildDocument {
  id: number;
  agent_id: number;
  chunk_count: number;
  status: "ready" | "indexing" | "draft";
  embedding_model: string;
}

const REBUILT = `FROM documents d WHERE d.status IN ('ready', 'indexing', 'draft')
  AND (d.embedding_model = @model OR EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.document_id = d.id AND v.model = @model))`;

/** The documents a rebuild copies, in id order after `afterId` (keyset paging: stable while documents come and go). */
export function documentsToRebuild(model: string, afterId: number, limit: number): RebuildDocument[] {
  return db()
    .prepare(`SELECT d.id, d.agent_id, d.chunk_count, d.status, d.embedding_model ${REBUILT} AND d.id > @after ORDER BY d.id LIMIT @limit`)
    .all({ model, after: afterId, limit }) as RebuildDocument[];
}

/** About how many vectors a rebuild of `model`'s index copies (its progress bar's total). */
export function vectorsToRebuild(model: string): number {
  return (db().prepare(`SELECT COALESCE(SUM(d.chunk_count), 0) AS n ${REBUILT}`).get({ model }) as { n: number }).n;
}

/** Whether a document is still ready, indexing or staged in a draft (not deleted, replaced or failed). */
export function documentStillIndexed(id: number): boolean {
  return db().prepare("SELECT 1 FROM documents WHERE id = ? AND status IN ('ready', 'indexing', 'draft')").get(id) !== undefined;
}
