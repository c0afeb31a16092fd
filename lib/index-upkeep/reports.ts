/**
 * What index upkeep reports (Index health, GET /api/health, the audit page): the check after a
 * Chroma restart, the rebuild, the copies for exact ranking and the health check. Types only, so
 * that lib/index-upkeep/state.ts, which keeps the values behind them, and the modules that fill
 * them in can both import them.
 */

/** The check after Chroma came back (lib/index-upkeep/after-restart.ts). */
export interface RecheckState {
  /** The check of the suspect documents (the full check is `full`). */
  state: "idle" | "waiting" | "running";
  reason: string | null;
  checked: number;
  total: number;
  /** Chunks written again in this pass, and of those, how many a query still cannot return. */
  rewritten: number;
  still_unreachable: number;
  last_finished_at: string | null;
  /** Until when documents written become suspect (null: not following). */
  following_until: string | null;
  /** Ready suspect documents not checked yet. */
  unchecked_documents: number;
  /** Chunks written again since the server started, and chunks kept as unreachable now (all agents). */
  rewritten_since_start: number;
  kept_unreachable: number;
  full: FullCheckState;
}

/** The paced check of every chunk (lib/index-upkeep/after-restart.ts). */
export interface FullCheckState {
  state: "idle" | "running" | "pending";
  checked: number;
  total: number;
  /** Chunks the full check wrote again since the server started. */
  rewritten: number;
  started_at: string | null;
  finished_at: string | null;
}

/** The index rebuild (lib/index-upkeep/rebuild.ts). */
export interface RebuildState {
  state: "idle" | "running";
  reason: string | null;
  copied: number;
  total: number;
  started_at: string | null;
  last_finished_at: string | null;
  /** Seconds the last rebuild took, with its vector count; null before the first. */
  last_seconds: number | null;
  last_vectors: number | null;
  last_error: string | null;
}

/** The copying of vectors from Chroma for exact ranking (lib/index-upkeep/exact-copies.ts). */
export interface CopyState {
  running: boolean;
  copied: number;
  /** Documents whose vectors Chroma does not hold in full (the audit names them); not tried again in this process. */
  skipped: number[];
  error: string | null;
}

/** The health check (lib/index-upkeep/health.ts). */
export interface Health {
  ok: boolean;
  /** `index_unreadable`: Chroma answers but cannot read the collection's vector index (its files are damaged); a rebuild repairs it. */
  chroma: { ok: boolean; error?: string; index_unreadable: boolean };
  embedder: { ok: boolean; model?: string; dimension?: number; error?: string };
  /** Models of indexed documents that differ from the configured one. */
  stale_models: string[];
  /**
   * Documents left indexing with no ingest running, vector removals still waiting for Chroma,
   * the check of every chunk after Chroma came back from a crash (lib/index-upkeep/after-restart.ts)
   * and the rebuild of the index that precedes it (lib/index-upkeep/rebuild.ts).
   */
  index: { stuck_documents: number; awaiting_cleanup: number; recheck: RecheckState; rebuild: RebuildState; exact: ExactState };
}

/** Exact ranking (lib/retrieval/exact.ts): its limits, the vectors held, and the copies still to make from Chroma. */
export interface ExactState {
  max_chunks: number;
  memory_mb: number;
  held_mb: number;
  /** Agents past max_chunks, and how each is served now (its compact table, or Chroma's index and why). */
  large_agents: { agent_id: number; name: string; chunks: number; serving: string }[];
  documents_without_copy: number;
  copying: boolean;
  copy_error: string | null;
}
