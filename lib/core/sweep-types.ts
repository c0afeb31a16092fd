import type { ChunkStrategy } from "./chunking";

/**
 * A chunk-settings sweep as the API returns it (GET /api/agents/{id}/sweeps/latest and
 * /sweeps/{sweepId}): the agent's documents re-chunked and embedded into a temporary index
 * per setting, the labeled pairs run against each, the live index untouched until a row is
 * applied. Safe to import in client components (types and constants only).
 */

export interface SweepSetting {
  chunk_size: number;
  chunk_overlap: number;
  chunk_strategy: ChunkStrategy;
  /**
   * Another embedding model than the app's (the alternative provider), to compare models on the
   * same pairs; absent for the app's own model. A row with it can be measured, not applied.
   */
  embedding_model?: string;
}

export type SweepStatus = "running" | "done" | "failed";

export interface SweepRow extends SweepSetting {
  status: "waiting" | "running" | "done" | "failed";
  /** Chunks the agent's documents make with this setting (null until counted). */
  chunks: number | null;
  /** Recall at k = 1, 3, 5, 10 and at the sweep's k, keyed by k as a string. */
  recall_at_k: Record<string, number | null> | null;
  mrr: number | null;
  /** This setting is the one most of the agent's ready documents are indexed with now. */
  current: boolean;
  error: string | null;
}

export interface SweepApply {
  row: number;
  status: "running" | "done" | "failed";
  /** Documents re-indexed so far, of `total`. */
  done: number;
  total: number;
  error: string | null;
}

export interface SweepView {
  id: number;
  agent_id: number;
  k: number;
  status: SweepStatus;
  error: string | null;
  n_pairs: number;
  n_documents: number;
  /** Work done so far across all rows (documents embedded plus pairs ranked), of `total`. */
  progress: { done: number; total: number };
  rows: SweepRow[];
  apply: SweepApply | null;
  created_at: string;
  updated_at: string;
}

/** The ks every row reports, besides the sweep's own k. */
export const SWEEP_KS = [1, 3, 5, 10];
/** The most settings one sweep compares. */
export const MAX_SWEEP_SETTINGS = 12;
/**
 * The most chunks one sweep row may make of the agent's documents. A row embeds every one of them
 * into a temporary Chroma collection and ranks the pairs against it: 100,000 is the largest index
 * the benchmark measures (minutes to write, gigabytes of Chroma's memory: docs/performance.md,
 * 'Figures behind the code's choices'), so a row stays within what the app is known to handle,
 * while a chunk size of 1 (a chunk per character) on a few megabytes of text would ask for
 * millions. An agent of 25,000 chunks at the default 800/100 (about 17 million characters) can
 * still try 200-character chunks (about 88,000).
 */
export const MAX_SWEEP_ROW_CHUNKS = 100_000;
/** The choices the dashboard offers (any other whole numbers are accepted by the API). */
export const SWEEP_SIZES = [400, 800, 1200];
export const SWEEP_OVERLAPS = [0, 100];

export const settingLabel = (s: SweepSetting) =>
  `${s.chunk_size} / ${s.chunk_overlap} ${s.chunk_strategy}${s.embedding_model ? ` with ${s.embedding_model}` : ""}`;
