import "server-only";
import { deadDocuments, lastVectorWriteSeq, type DeadDocument } from "../db/vector-cleanup";
import { queueCleanup, takeRemovedDocuments } from "../ingest/cleanup";
import { chunkId, isVectorStoreUnavailable, ownCollections } from "../vector-store/client";
import { agentVectors } from "../vector-store/chunks";
import { indexUpkeepState } from "./state";

/**
 * The orphan sweep: vectors that reached Chroma after their document's removal was confirmed
 * (a write of the check after a crash, or of a process killed mid-write, whose answer was lost)
 * belong to no row and no queued clean-up, so nothing would ever remove them. Every vector write
 * is logged before it is sent (lib/db/index-check.ts); the sweep looks at the documents written
 * since the sweeps before it and those whose removal completed meanwhile, and queues the removal
 * of the vectors Chroma still holds of the dead ones (row gone or failed, nothing queued). It
 * runs at start-up and after each check of the index, so its work follows the writes, not the
 * size of the index.
 */

/** The first sweep of a process looks this far back in the log: the writes a stopped process may have left. */
export const START_WRITES = 5_000;
/** Chunk ids read from Chroma per request. */
const READ_BATCH = 500;
const RETRY_MS = 5_000;
/** Removals kept for the next sweep while sweeps fail. */
const MAX_REMEMBERED = 10_000;

const state = () => indexUpkeepState().orphanSweep;

export const orphanSweeps = (): number => state().done;

/** Which of a dead document's chunks Chroma holds, in each of the app's collections. */
async function heldVectors(doc: DeadDocument): Promise<number> {
  let held = 0;
  for (const collection of await ownCollections()) {
    for (let from = 0; from < Math.max(1, doc.chunks); from += READ_BATCH) {
      const ids = Array.from({ length: Math.min(READ_BATCH, Math.max(1, doc.chunks) - from) }, (_, k) =>
        chunkId(doc.document_id, from + k),
      );
      held += (await agentVectors(collection, doc.agent_id, ids)).length;
    }
  }
  return held;
}

async function sweep(): Promise<number> {
  const s = state();
  const top = lastVectorWriteSeq();
  const from = s.from ?? Math.max(0, top - START_WRITES);
  const removed = takeRemovedDocuments();
  let queued = 0;
  try {
    for (const doc of deadDocuments(from, [...s.lastRemoved, ...removed])) {
      const held = await heldVectors(doc);
      if (held === 0) continue;
      // A write of it may still be on its way: the removal is checked again once done.
      queueCleanup(doc.agent_id, doc.document_id, held, "orphan vectors found after their document was removed", { lateWrites: true });
      queued++;
      console.warn(
        `[kb-inspector] ${held} vector(s) of document ${doc.document_id} (agent ${doc.agent_id}) reached Chroma after the document was removed; removing them`,
      );
    }
  } catch (err) {
    // Not looked at: they wait for the next sweep.
    s.lastRemoved = [...s.lastRemoved, ...removed].slice(-MAX_REMEMBERED);
    throw err;
  }
  s.from = s.lastTop ?? from;
  s.lastTop = top;
  s.lastRemoved = removed;
  s.done++;
  return queued;
}

/** Runs a sweep (joining one under way, then running again); how many documents' removals it queued. */
export async function sweepOrphans(): Promise<number> {
  const s = state();
  while (s.running) await s.running.catch(() => {});
  s.running = sweep();
  try {
    return await s.running;
  } finally {
    s.running = null;
  }
}

/** Sweeps in the background, again every few seconds while Chroma does not answer. */
export function sweepOrphansSoon(delayMs = 0): void {
  const s = state();
  if (s.timer) return;
  s.timer = setTimeout(() => {
    s.timer = null;
    sweepOrphans().catch((err) => {
      const detail = err instanceof Error ? err.message : String(err);
      console.error(`[kb-inspector] orphan sweep must wait: ${detail}`);
      if (isVectorStoreUnavailable(err)) sweepOrphansSoon(RETRY_MS);
    });
  }, delayMs);
  s.timer.unref?.();
}

/** Clears the sweep waiting to start (one under way finishes). */
export function stopOrphanSweeps(): void {
  const s = state();
  if (s.timer) clearTimeout(s.timer);
  s.timer = null;
}
