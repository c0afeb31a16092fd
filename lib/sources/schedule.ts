import "server-only";
import { dueSources, failInterruptedSyncs } from "../db/sources";
import { startSourceSync } from "./sync";

/** Starts the syncs whose interval has passed at `at`; the ids of the sources started. */
export function startDueSyncs(at: Date): number[] {
  const started: number[] = [];
  for (const s of dueSources(at)) {
    try {
      const { done } = startSourceSync(s.agent_id, s.id, { trigger: "schedule" });
      void done.catch(() => {});
      started.push(s.id);
    } catch {
      // Started by hand in the meantime: that sync counts for this interval.
    }
  }
  return started;
}

/**
 * Fails syncs a stop cut off, then starts the due syncs every `everyMs`. Returns the stop. The
 * schedule runs for the life of the process, started once, by lib/runtime/services.ts.
 */
export function watchSources(everyMs = 60_000): () => void {
  const n = failInterruptedSyncs();
  if (n > 0) console.log(`[kb-inspector] ${n} source sync(s) cut off by the stop marked failed; the next sync finishes them`);
  const timer = setInterval(() => startDueSyncs(new Date()), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
