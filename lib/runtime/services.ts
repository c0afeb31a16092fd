import "server-only";
import { installPeerStamp } from "../auth/peer";
import { layerState } from "../core/process-state";
import { agentsByLatestChange } from "../db/documents";
import { agentsByLatestSearch } from "../db/tool-calls";
import { embedder } from "../embeddings/configured";
import { recoverSweeps } from "../evaluation/sweep";
import { watchRetraining } from "../evaluation/rerank-retrain";
import { closeExtractPool } from "../extract/state";
import { stopWatchingChromaRestarts, watchChromaRestarts } from "../index-upkeep/after-restart";
import { copyMissingVectors, stopCopyRetries } from "../index-upkeep/exact-copies";
import { watchIndexRecall } from "../index-upkeep/index-recall-watch";
import { stopOrphanSweeps } from "../index-upkeep/orphans";
import { stopRetiringReplaced } from "../index-upkeep/rebuild";
import { recoverInterruptedIngests } from "../index-upkeep/recover";
import { stopScheduledCleanup } from "../ingest/cleanup";
import { saveCorpusStatsNow, warmCorpusStats } from "../retrieval/corpus-stats";
import { warmExactVectors } from "../retrieval/exact";
import { watchSources } from "../sources/schedule";

/**
 * The services that run in the background for the life of the server process: started in one
 * place when the server starts (instrumentation.ts), stopped in one place. Each service keeps its
 * own state in its layer's state module; the timers of the watchers that have no other state
 * (the source schedule, the index-recall monitor) are held here.
 */

/** Periods of the watchers, for a caller (a test) that wants them shorter; each defaults to the service's own. */
export interface ServiceOptions {
  /** How often the restart watch looks for an unclean Chroma restart (lib/index-upkeep/after-restart.ts). */
  restartWatchMs?: number;
  /** How often the due source syncs are started (lib/sources/schedule.ts). */
  sourceScheduleMs?: number;
  /** How often an agent's index recall is measured again, and how often the monitor looks for agents due. */
  indexRecall?: { everyMs?: number; lookMs?: number };
  /** How long after a copy pass Chroma failed (not up yet) it is tried again. */
  copyRetryMs?: number;
  /** How often agents whose labels changed get their learned reranker trained again (lib/evaluation/rerank-retrain.ts). */
  retrainLookMs?: number;
}

/** The runtime's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface RuntimeState {
  /**
   * The stops of the watchers startServices started (null when it has not run): the services run
   * for the life of the process and are started once, however many copies of this module Next
   * loads, and stopServices, from any copy, stops what they started.
   */
  watchers: (() => void)[] | null;
}

const runtimeState = () => layerState("runtime", (): RuntimeState => ({ watchers: null }));

/** Whether the background services run: started, and not stopped since. */
export const servicesStarted = (): boolean => runtimeState().watchers !== null;

const message = (err: unknown) => (err instanceof Error ? err.message : err);

/** Starts the background services, once per process; a second call does nothing. */
export function startServices(options: ServiceOptions = {}): void {
  const state = runtimeState();
  if (state.watchers) return;
  const watchers: (() => void)[] = (state.watchers = []);
  // First, so every request from here on is stamped with the address it came from.
  installPeerStamp();
  try {
    const n = recoverInterruptedIngests();
    if (n > 0) console.log(`[kb-inspector] ${n} interrupted ingest(s) marked failed; their partial vectors are being removed`);
  } catch (err) {
    console.error("[kb-inspector] could not recover interrupted ingests:", message(err));
  }
  // Chroma restarted from a crash can hold chunks its index cannot return: they are checked and rewritten.
  watchChromaRestarts(options.restartWatchMs);
  // A sweep cut off by the stop is failed now; its temporary collections go once Chroma answers.
  void recoverSweeps()
    .then((n) => n > 0 && console.log(`[kb-inspector] ${n} sweep(s) cut off by the stop marked failed`))
    .catch((err) => console.error("[kb-inspector] temporary sweep collections not removed yet:", message(err)));
  // Syncs of sources cut off by the stop are failed; sources with an interval sync on schedule.
  watchers.push(watchSources(options.sourceScheduleMs));
  // Replays each agent's recent searches in the background, hourly, and keeps its index recall.
  watchers.push(watchIndexRecall(options.indexRecall));
  // Trains a learned reranker again once its agent's labels changed.
  watchers.push(watchRetraining(options.retrainLookMs));
  // Loads the embedder's data now rather than on the first page view; a failure shows in /api/health.
  // Then counts the features of the most recently changed agents, for query weighting.
  // Then loads the vectors of the most recently searched and changed agents for exact ranking, and
  // copies from Chroma those of documents indexed before the app kept a copy.
  void embedder()
    .embed(["warm-up"])
    .then(() => warmCorpusStats(embedder()))
    .catch(() => {});
  // Read from SQLite alone, beside the embedder's start; a search's own load goes first.
  void warmExactVectors(embedder().model, [...agentsByLatestSearch(50), ...agentsByLatestChange(embedder().model, 50)])
    .catch((err) => console.error("[kb-inspector] exact ranking's vectors not loaded ahead:", message(err)))
    .then(() => copyMissingVectors({ retryMs: options.copyRetryMs ?? 30_000 }));
}

/**
 * Stops the background services: the watchers startServices started, the pending timers of the
 * services any request can set going (the restart watch and its pass, the vector clean-up, the
 * orphan sweep, the copies' retry, the drop of a replaced collection), the query-weighting counts
 * waiting to be written (written now), and the extract workers. Work already under way finishes;
 * what is queued stays in SQLite for the next start. startServices may be called again after it.
 */
export async function stopServices(): Promise<void> {
  const state = runtimeState();
  const watchers = state.watchers ?? [];
  state.watchers = null;
  for (const stop of watchers) stop();
  stopWatchingChromaRestarts();
  stopScheduledCleanup();
  stopOrphanSweeps();
  stopCopyRetries();
  stopRetiringReplaced();
  saveCorpusStatsNow();
  await closeExtractPool();
}
