import "server-only";
import { db, now } from "./client";

/**
 * The `vector_cleanup` table: vectors that must go (a failed or interrupted ingest's, a deleted
 * or replaced document's, a deleted agent's). A row is written in the same transaction as the
 * change that orphaned the vectors and deleted only once Chroma has confirmed the removal
 * (lib/ingest/cleanup.ts runs them).
 */
export interface CleanupEntry {
  id: number;
  agent_id: number;
  /** null: every vector of the agent (the agent was deleted). */
  document_id: number | null;
  /** Upper bound on how many vectors may be left, so searches can ask Chroma for that many more. */
  vectors: number;
  reason: string;
  attempts: number;
  /**
   * 1 when a write of these vectors may still reach Chroma after the removal (its request
   * timed out, or the server stopped mid-write): Chroma may apply a request its client gave up
   * on, and a delete by filter removes only what is already written. Such an entry stays after
   * a successful delete and is done only when a check SETTLE_MS later finds nothing.
   */
  late_writes: number;
  /** When a delete of this entry last succeeded (entries with late_writes only). */
  removed_at: string | null;
  last_error: string | null;
  next_attempt_at: string;
  created_at: string;
}

export function enqueueCleanup(
  agentId: number,
  documentId: number | null,
  vectors: number,
  reason: string,
  opts: { lateWrites?: boolean } = {},
): void {
  const t = now();
  db()
    .prepare(
      `INSERT INTO vector_cleanup (agent_id, document_id, vectors, reason, late_writes, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(agentId, documentId, vectors, reason, opts.lateWrites ? 1 : 0, t, t);
}

export function pendingCleanups(): CleanupEntry[] {
  return db().prepare("SELECT * FROM vector_cleanup ORDER BY id").all() as CleanupEntry[];
}

/**
 * Entries whose next attempt is due now; with `all`, every entry except those waiting out their
 * check for late writes (that wait is what makes the check mean something).
 */
export function dueCleanups(opts: { all?: boolean } = {}): CleanupEntry[] {
  const sql = opts.all
    ? "SELECT * FROM vector_cleanup WHERE removed_at IS NULL OR next_attempt_at <= ? ORDER BY id"
    : "SELECT * FROM vector_cleanup WHERE next_attempt_at <= ? ORDER BY id";
  return db().prepare(sql).all(now()) as CleanupEntry[];
}

/** Vectors of this agent that may still be in Chroma though no ready document owns them. */
export function pendingVectorsOf(agentId: number): number {
  const row = db()
    .prepare("SELECT COALESCE(SUM(vectors), 0) AS n FROM vector_cleanup WHERE agent_id = ? AND document_id IS NOT NULL")
    .get(agentId) as { n: number };
  return row.n;
}

export function completeCleanup(id: number): void {
  db().prepare("DELETE FROM vector_cleanup WHERE id = ?").run(id);
}

/** A delete of an entry with late writes succeeded: it is checked again at `checkAt`. */
export function markRemoved(id: number, checkAt: Date): void {
  db()
    .prepare("UPDATE vector_cleanup SET removed_at = ?, last_error = NULL, next_attempt_at = ? WHERE id = ?")
    .run(now(), checkAt.toISOString(), id);
}

export function postponeCleanup(id: number, attempts: number, error: string, nextAttemptAt: Date): void {
  db()
    .prepare("UPDATE vector_cleanup SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE id = ?")
    .run(attempts, error.slice(0, 500), nextAttemptAt.toISOString(), id);
}

export function cleanupCount(): number {
  return (db().prepare("SELECT COUNT(*) AS n FROM vector_cleanup").get() as { n: number }).n;
}

/** When the earliest postponed entry is due, or null when none is left. */
export function nextCleanupAt(): string | null {
  return (db().prepare("SELECT MIN(next_attempt_at) AS t FROM vector_cleanup").get() as { t: string | null }).t;
}

/** A document whose vectors may be in Chroma though its row is gone or failed (an orphan sweep's candidate). */
export interface DeadDocument {
  agent_id: number;
  document_id: number;
  /** Chunks its logged writes carried, or the caller knew of if more: a bound on its chunk indices. */
  chunks: number;
}

/** The newest vector write's place in the log (lib/db/index-check.ts), 0 when none. */
export function lastVectorWriteSeq(): number {
  return (db().prepare("SELECT COALESCE(MAX(seq), 0) AS s FROM vector_writes").get() as { s: number }).s;
}

// A document is dead when its row is gone or failed (neither ever becomes ready again: ids are
// never reused), and nothing awaits its vectors when no clean-up entry names it or its agent.
const DEAD = `NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.agent_id = c.agent_id AND d.status != 'failed')
  AND NOT EXISTS (SELECT 1 FROM vector_cleanup q WHERE q.agent_id = c.agent_id AND (q.document_id IS NULL OR q.document_id = c.document_id))`;

/**
 * Of the documents written after `afterSeq` and of `also`, those that are dead with no clean-up
 * queued, with the chunks their logged writes carried (all of the log, so a long document's
 * early slices count too).
 */
export function deadDocuments(afterSeq: number, also: { agent_id: number; document_id: number; chunks: number }[] = []): DeadDocument[] {
  return db()
    .prepare(
      `WITH c AS (
         SELECT agent_id, document_id, 0 AS chunks FROM vector_writes WHERE seq > ?
         UNION ALL SELECT json_extract(value, '$.agent_id'), json_extract(value, '$.document_id'), json_extract(value, '$.chunks') FROM json_each(?)
       ), dead AS (SELECT agent_id, document_id, MAX(chunks) AS chunks FROM c WHERE ${DEAD} GROUP BY agent_id, document_id),
       -- One pass over the log for all of them (it has no index by document).
       logged AS (
         SELECT w.agent_id, w.document_id, SUM(w.chunks) AS chunks FROM vector_writes w
         WHERE w.document_id IN (SELECT document_id FROM dead) GROUP BY w.agent_id, w.document_id
       )
       SELECT dead.agent_id, dead.document_id, MAX(dead.chunks, COALESCE(logged.chunks, 0)) AS chunks
       FROM dead LEFT JOIN logged ON logged.agent_id = dead.agent_id AND logged.document_id = dead.document_id
       ORDER BY dead.agent_id, dead.document_id`,
    )
    .all(afterSeq, JSON.stringify(also)) as DeadDocument[];
}
