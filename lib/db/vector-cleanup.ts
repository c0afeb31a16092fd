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
  db().prepare("UPDATE vector_cleanup SET removed_at = ?, last_error = NULL, next_attempt_at = ? WHERE id = ?").run(now(), checkAt.toISOString(), id);
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
