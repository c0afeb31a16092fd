import "server-only";
import { isVectorStoreUnavailable, ownCollections } from "../vector-store/client";
import { db, now } from "../db/client";
import { deleteAgentVectors, deleteDocumentVectors } from "../vector-store/chunks";

/**
 * Vectors that must go: those of a failed or interrupted ingest, of a deleted or replaced
 * document, of a deleted agent. Each is a row in `vector_cleanup`, written in the same
 * transaction as the change that orphaned the vectors, and removed only once Chroma has
 * confirmed the delete, so a failure (Chroma down, hung, or refusing) is retried with
 * backoff until it succeeds, across restarts. Meanwhile search never shows those vectors:
 * it keeps only chunks of ready documents.
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
  last_error: string | null;
  next_attempt_at: string;
  created_at: string;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

export function enqueueCleanup(agentId: number, documentId: number | null, vectors: number, reason: string): void {
  const t = now();
  db()
    .prepare(
      `INSERT INTO vector_cleanup (agent_id, document_id, vectors, reason, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(agentId, documentId, vectors, reason, t, t);
}

export function pendingCleanups(): CleanupEntry[] {
  return db().prepare("SELECT * FROM vector_cleanup ORDER BY id").all() as CleanupEntry[];
}

/** Vectors of this agent that may still be in Chroma though no ready document owns them. */
export function pendingVectorsOf(agentId: number): number {
  const row = db()
    .prepare("SELECT COALESCE(SUM(vectors), 0) AS n FROM vector_cleanup WHERE agent_id = ? AND document_id IS NOT NULL")
    .get(agentId) as { n: number };
  return row.n;
}

async function attempt(entry: CleanupEntry): Promise<void> {
  for (const collection of await ownCollections()) {
    if (entry.document_id === null) await deleteAgentVectors(collection, entry.agent_id);
    else await deleteDocumentVectors(collection, entry.agent_id, entry.document_id);
  }
}

function retryDelay(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

const holder = globalThis as unknown as {
  __kbCleanup?: { running: Promise<number> | null; timer: NodeJS.Timeout | null; due: number };
};
const state = () => (holder.__kbCleanup ??= { running: null, timer: null, due: 0 });

/**
 * Runs every entry that is due (or all of them with `all`); returns how many are left.
 * One run at a time per process: a caller arriving mid-run waits for it, then runs again.
 */
export async function runCleanup(opts: { all?: boolean } = {}): Promise<number> {
  const s = state();
  while (s.running) await s.running.catch(() => {});
  s.running = (async () => {
    const due = (
      opts.all
        ? db().prepare("SELECT * FROM vector_cleanup ORDER BY id").all()
        : db().prepare("SELECT * FROM vector_cleanup WHERE next_attempt_at <= ? ORDER BY id").all(now())
    ) as CleanupEntry[];
    const retry = db().prepare("UPDATE vector_cleanup SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE id = ?");
    for (const [i, entry] of due.entries()) {
      try {
        await attempt(entry);
        db().prepare("DELETE FROM vector_cleanup WHERE id = ?").run(entry.id);
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        // Chroma down: the rest would fail the same way; all of them wait for the next attempt.
        const failed = isVectorStoreUnavailable(err) ? due.slice(i) : [entry];
        console.error(
          `[kb-inspector] vector clean-up: ${failed.length} removal(s) must wait (attempt ${entry.attempts + 1}; ` +
            `agent ${entry.agent_id}, document ${entry.document_id ?? "*"}): ${detail}`,
        );
        for (const e of failed) {
          retry.run(e.attempts + 1, detail.slice(0, 500), new Date(Date.now() + retryDelay(e.attempts + 1)).toISOString(), e.id);
        }
        if (failed.length > 1) break;
      }
    }
    return (db().prepare("SELECT COUNT(*) AS n FROM vector_cleanup").get() as { n: number }).n;
  })();
  try {
    return await s.running;
  } finally {
    s.running = null;
  }
}

/**
 * Runs the clean-up soon in the background and keeps retrying, with backoff, while
 * entries remain. Safe to call often: one timer per process.
 */
export function scheduleCleanup(delayMs = 0): void {
  const s = state();
  const due = Date.now() + delayMs;
  if (s.timer && s.due <= due) return;
  if (s.timer) clearTimeout(s.timer);
  s.due = due;
  s.timer = setTimeout(async () => {
    s.timer = null;
    let left = 0;
    try {
      left = await runCleanup();
    } catch (err) {
      console.error("[kb-inspector] vector clean-up could not run:", err instanceof Error ? err.message : err);
      left = 1;
    }
    if (left > 0) {
      const next = db().prepare("SELECT MIN(next_attempt_at) AS t FROM vector_cleanup").get() as { t: string | null };
      const wait = next.t ? Math.max(250, Date.parse(next.t) - Date.now()) : FIRST_RETRY_MS;
      scheduleCleanup(Math.min(wait, MAX_RETRY_MS));
    }
  }, delayMs);
  s.timer.unref?.();
}

/**
 * Tries the clean-up of what was just queued right away, so a delete that Chroma accepts is
 * complete when the caller answers. Waits a few seconds at most: a hung Chroma must not hold
 * the request, and a failure only leaves the work to the retries.
 */
export async function cleanupNow(maxWaitMs = 5_000): Promise<void> {
  const run = runCleanup().then(
    (left) => (left > 0 ? scheduleCleanup(FIRST_RETRY_MS) : undefined),
    () => scheduleCleanup(FIRST_RETRY_MS),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([run, new Promise<void>((r) => (timer = setTimeout(r, maxWaitMs)))]);
  clearTimeout(timer);
}
