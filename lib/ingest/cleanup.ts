import "server-only";
import { isVectorStoreUnavailable, ownCollections } from "../vector-store/client";
import {
  cleanupCount,
  completeCleanup,
  enqueueCleanup,
  dueCleanups,
  markRemoved,
  nextCleanupAt,
  postponeCleanup,
  type CleanupEntry,
} from "../db/vector-cleanup";
import { countDocumentVectors, deleteAgentVectors, deleteDocumentVectors } from "../vector-store/chunks";
import { ingestState, type RemovedDocument } from "./state";

/**
 * Runs the queued removals of vectors (lib/db/vector-cleanup.ts): an entry is deleted only
 * once Chroma has confirmed the delete, so a failure (Chroma down, hung, or refusing) is retried with
 * backoff until it succeeds, across restarts. Meanwhile search never shows those vectors:
 * it keeps only chunks of ready documents.
 */

export { enqueueCleanup, pendingCleanups, pendingVectorsOf, type CleanupEntry } from "../db/vector-cleanup";
export type { RemovedDocument } from "./state";

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
/**
 * How long after a successful delete an entry with late writes is checked again. A write that
 * timed out reaches Chroma, if at all, once Chroma serves again; the delete succeeding says it
 * does, and this leaves it ample time to finish what it had received.
 */
export const LATE_WRITE_CHECK_MS = 10_000;

/** Removes the entry's vectors; false when it must be checked again later (late writes). */
async function attempt(entry: CleanupEntry): Promise<boolean> {
  const collections = await ownCollections();
  if (entry.late_writes && entry.removed_at && entry.document_id !== null) {
    let late = 0;
    for (const c of collections) late += await countDocumentVectors(c, entry.agent_id, entry.document_id);
    if (late === 0) return true;
    console.warn(
      `[kb-inspector] vector clean-up: ${late} vector(s) of document ${entry.document_id} (agent ${entry.agent_id}) reached Chroma ` +
        `after they were removed (a write that had timed out); removing them and checking again in ${LATE_WRITE_CHECK_MS / 1000} s`,
    );
  }
  for (const collection of collections) {
    if (entry.document_id === null) await deleteAgentVectors(collection, entry.agent_id);
    else await deleteDocumentVectors(collection, entry.agent_id, entry.document_id);
  }
  return !(entry.late_writes && entry.document_id !== null);
}

function retryDelay(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

const state = () => ingestState().cleanup;

/** Removals remembered for the next sweep: a write that lands after one is what the sweep looks for. */
const REMEMBERED_REMOVALS = 10_000;

function remember(entry: CleanupEntry): void {
  if (entry.document_id === null) return;
  const removed = state().removed;
  const key = `${entry.agent_id}:${entry.document_id}`;
  removed.delete(key);
  removed.set(key, { agent_id: entry.agent_id, document_id: entry.document_id, chunks: entry.vectors });
  if (removed.size > REMEMBERED_REMOVALS) removed.delete(removed.keys().next().value!);
}

/** The documents whose removal completed since the last call (the orphan sweep's second source). */
export function takeRemovedDocuments(): RemovedDocument[] {
  const s = state();
  const taken = [...s.removed.values()];
  s.removed = new Map();
  return taken;
}

/**
 * Runs every entry that is due (or all of them with `all`, except checks for late writes that
 * are not due yet); returns how many are left.
 * One run at a time per process: a caller arriving mid-run waits for it, then runs again.
 */
export async function runCleanup(opts: { all?: boolean } = {}): Promise<number> {
  const s = state();
  while (s.running) await s.running.catch(() => {});
  s.running = (async () => {
    const due = dueCleanups(opts);
    for (const [i, entry] of due.entries()) {
      try {
        if (await attempt(entry)) {
          completeCleanup(entry.id);
          remember(entry);
        } else markRemoved(entry.id, new Date(Date.now() + LATE_WRITE_CHECK_MS));
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        // Chroma down: the rest would fail the same way; all of them wait for the next attempt.
        const failed = isVectorStoreUnavailable(err) ? due.slice(i) : [entry];
        console.error(
          `[kb-inspector] vector clean-up: ${failed.length} removal(s) must wait (attempt ${entry.attempts + 1}; ` +
            `agent ${entry.agent_id}, document ${entry.document_id ?? "*"}): ${detail}`,
        );
        for (const e of failed) {
          postponeCleanup(e.id, e.attempts + 1, detail, new Date(Date.now() + retryDelay(e.attempts + 1)));
        }
        if (failed.length > 1) break;
      }
    }
    return cleanupCount();
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
      const next = nextCleanupAt();
      const wait = next ? Math.max(250, Date.parse(next) - Date.now()) : FIRST_RETRY_MS;
      scheduleCleanup(Math.min(wait, MAX_RETRY_MS));
    }
  }, delayMs);
  s.timer.unref?.();
}

/** Clears the pending run of the clean-up (one under way finishes); what is queued waits in SQLite for the next scheduleCleanup. */
export function stopScheduledCleanup(): void {
  const s = state();
  if (s.timer) clearTimeout(s.timer);
  s.timer = null;
}

/**
 * Queues vectors for removal outside a transaction of the change that orphaned them (a write
 * found to have raced a removal, an orphan found by a sweep) and makes sure the loop runs it.
 */
export function queueCleanup(...args: Parameters<typeof enqueueCleanup>): void {
  enqueueCleanup(...args);
  scheduleCleanup();
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
