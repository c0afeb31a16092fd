import "server-only";
import { layerState } from "../core/process-state";
import type { RemovedDocument } from "../ingest/state";
import type { CopyState, Health, RebuildState, RecheckState } from "./reports";

/** The check after Chroma came back (lib/index-upkeep/after-restart.ts): the pass over suspect documents, the full check and the restart watch. */
export interface Recheck {
  s: Omit<RecheckState, "following_until" | "unchecked_documents" | "kept_unreachable" | "full">;
  again: boolean;
  /** The pass asked for, waiting for Chroma to settle. */
  timer: NodeJS.Timeout | null;
  watch: NodeJS.Timeout | null;
  /** Whether the watch listens for Chroma's return: once per process, as a listener cannot be taken back. */
  listening: boolean;
  /** The unclean-restart count the last rebuild of the index answered. */
  rebuiltFor: number;
  /** Looks the watch has taken, so a test can wait for the next ones instead of for time. */
  looks: number;
  fullRunning: boolean;
  fullRewritten: number;
  /** Tests: a window of their own size (useRecheckWindow). */
  window?: number;
}

/** The index rebuild (lib/index-upkeep/rebuild.ts). */
export interface RebuildRun {
  s: RebuildState;
  running: Promise<RebuildState> | null;
  /** Drops the collection the last rebuild replaced, once requests on their way to it are done. */
  retire: NodeJS.Timeout | null;
}

/** The orphan sweep (lib/index-upkeep/orphans.ts). */
export interface OrphanSweep {
  /** Writes after this place are looked at; null before the first sweep. */
  from: number | null;
  /** The log's end when the last sweep began: the next one starts from there, so each write is looked at twice. */
  lastTop: number | null;
  /** Removals the last sweep looked at, looked at once more by the next. */
  lastRemoved: RemovedDocument[];
  running: Promise<number> | null;
  timer: NodeJS.Timeout | null;
  /** Sweeps finished in this process, so a test can wait for the next one. */
  done: number;
}

/** The pass that copies vectors from Chroma for exact ranking (lib/index-upkeep/exact-copies.ts). */
export interface CopyRun {
  state: CopyState;
  run: Promise<void> | null;
  /** The next pass after one Chroma failed, when asked for with retryMs. */
  retry: NodeJS.Timeout | null;
}

/** The last health check (lib/index-upkeep/health.ts); `at` is set once it has settled. */
export interface CachedHealth {
  pending: Promise<Health>;
  at?: number;
}

/** Index upkeep's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface IndexUpkeepState {
  /**
   * The after-restart check: the pass over suspect documents, the full check, their timers and
   * the restart watch, started at start-up (lib/runtime/services.ts): the watch looks every few
   * seconds for the life of the process, and a pass runs in the background long after whatever
   * asked for it.
   */
  recheck: Recheck;
  /**
   * The index rebuild's state (progress, last result), the rebuild running and the timer that
   * drops the replaced collection: a rebuild runs after whatever started it (a request, the
   * after-restart check) and a second call joins the one running.
   */
  rebuild: RebuildRun;
  /**
   * The orphan sweep's place in the vector-write log, the sweep running and its retry timer,
   * started at start-up and after each check of the index: each sweep goes on from where the last
   * ones got to, for the life of the process.
   */
  orphanSweep: OrphanSweep;
  /**
   * The pass that copies into SQLite the vectors it lacks from Chroma: its progress, the documents
   * skipped, the pass running and its retry timer. A pass, started after start-up or by a search,
   * runs in the background one at a time, and skipped documents are not tried again in this process.
   */
  exactCopies: CopyRun;
  /**
   * The last health check (its promise, and when it settled), or null: page renders and anonymous
   * GET /api/health reuse a check for HEALTH_CACHE_MS, and each check embeds a probe (a paid call
   * with OpenAI) and queries Chroma.
   */
  health: CachedHealth | null;
}

/** An orphan sweep that has not swept yet: what a process starts with. */
export const idleOrphanSweep = (): OrphanSweep => ({ from: null, lastTop: null, lastRemoved: [], running: null, timer: null, done: 0 });

function createIndexUpkeepState(): IndexUpkeepState {
  return {
    recheck: {
      s: {
        state: "idle",
        reason: null,
        checked: 0,
        total: 0,
        rewritten: 0,
        still_unreachable: 0,
        last_finished_at: null,
        rewritten_since_start: 0,
      },
      again: false,
      timer: null,
      watch: null,
      listening: false,
      rebuiltFor: 0,
      looks: 0,
      fullRunning: false,
      fullRewritten: 0,
    },
    rebuild: {
      s: {
        state: "idle",
        reason: null,
        copied: 0,
        total: 0,
        started_at: null,
        last_finished_at: null,
        last_seconds: null,
        last_vectors: null,
        last_error: null,
      },
      running: null,
      retire: null,
    },
    orphanSweep: idleOrphanSweep(),
    exactCopies: { state: { running: false, copied: 0, skipped: [], error: null }, run: null, retry: null },
    health: null,
  };
}

/** Index upkeep's values, made on first use in this process. */
export const indexUpkeepState = () => layerState("index-upkeep", createIndexUpkeepState);
