import "server-only";
import { layerState } from "../core/process-state";
import type { FeatureCounts } from "../embeddings";
import type { VectorTable } from "./exact-kernel";
import type { FloatRows } from "./float-rows";

/** An agent's vectors as exact ranking holds them (lib/retrieval/exact.ts). */
export interface AgentVectors {
  /** readySignature when loaded: the ready set it holds. */
  signature: string;
  /** null: complete but too large to hold, read from SQLite on each search. */
  table: VectorTable | null;
  documents: number[];
  /** Each document's chunk count, in the order of `documents`. */
  chunkCounts: number[];
  /** Chunks of the ready documents, all with a vector. */
  chunks: number;
  dimension: number;
  bytes: number;
  usedAt: number;
  /** A draft's view (AgentView.asDraft): documents of these vectors it leaves out (scored as removed). */
  mask?: Set<number>;
  /** A draft's view: its staged versions' vectors, scored after these. */
  more?: AgentVectors;
  /** A filtered view (AgentView.filtered): the only documents of a held table scored; the rest are not there. */
  only?: Set<number>;
  /** A compact table's float32 copies on disk, for the exact re-score of its candidates (lib/retrieval/float-rows.ts). */
  floats?: FloatRows;
}

/** Why an agent past the exact limit is served by Chroma's index for now (lib/retrieval/exact.ts, compactVectors). */
export interface CompactRefusal {
  /** `memory`: its table does not fit within EXACT_MEMORY_MB beside the tables of agents searched more. */
  reason: "memory";
  needed_mb: number;
  at: number;
}

/** Limits of exact ranking that a caller (tests) sets in place of the configuration's (useExactLimits). */
export interface ExactLimits {
  chunks?: number;
  memoryMb?: number;
  /** Chunks a streamed read takes per step (CHUNKS_PER_READ otherwise). */
  readChunks?: number;
}

/** Exact ranking's vectors in memory (lib/retrieval/exact.ts). */
export interface ExactVectors {
  /** By `<agent id>|<model>`. */
  agents: Map<string, AgentVectors>;
  /** Loads in progress, by the same key; null: the agent is not ranked exactly. */
  loading: Map<string, Promise<AgentVectors | null>>;
  /** Tests: limits of their own (useExactLimits). */
  limits: ExactLimits;
  /** Searches per key since start, halved as they grow: which agents' tables memory keeps first. */
  searches: Map<string, number>;
  /** Compact tables whose load reads a file on disk (quick): a search waits for it rather than ask the index. */
  quick: Set<string>;
  /** Agents past the limit whose table memory could not hold, by key, with the size it needed. */
  refused: Map<string, CompactRefusal>;
  /** Compact tables being written to disk, by key (one write at a time each; `again` when it changed meanwhile). */
  saving: Map<string, { again: boolean }>;
}

/** An agent's feature counts for query weighting (lib/retrieval/corpus-stats.ts). */
export interface CorpusEntry {
  model: string;
  /** readySignature when the counts were last brought up to date */
  signature: string;
  /** document id → what its chunks were made from */
  docs: Map<number, string>;
  chunks: number;
  df: FeatureCounts;
}

/** Query weighting's counts and their upkeep (lib/retrieval/corpus-stats.ts). */
export interface CorpusCounts {
  /** Agent id to its counts, for the most recently searched agents. */
  entries: Map<number, CorpusEntry>;
  /** Agent id to the tail of its line of updates. */
  lines: Map<number, Promise<unknown>>;
  /** Agent id to the timer of its pending write to disk. */
  saves: Map<number, NodeJS.Timeout>;
  /** Whether the exit hook that writes the pending counts is installed. */
  exitHook: boolean;
}

/** An agent's list of ready chunk ids for a Chroma query (lib/retrieval/id-scope.ts). */
export interface IdScopeList {
  /** The ready set and the documents left out, when the list was made. */
  key: string;
  /** The ids as a JSON array, spliced into the query's body as it is. */
  json: string;
  /** Chroma refused this list: the `where` filter is used until the key changes. */
  refused: boolean;
  usedAt: number;
}

/** What GET /api/agents/{id}/index-recall answers, and what the pages show (lib/retrieval/index-recall.ts). */
export interface IndexRecall {
  agent_id: number;
  k: number;
  queries: number;
  served_recall: number | null;
  index_recall: number | null;
  /** null when not measured. */
  served_exactly: boolean | null;
  nearest_missed: number | null;
  index_nearest_missed: number | null;
  model: string | null;
  threshold: number;
  below_threshold: boolean;
  measured_at: string | null;
  reason: string | null;
  /** How an agent past EXACT_MAX_CHUNKS is served now: its compact table, or Chroma's index and why; null within the limit. */
  serving: string | null;
}

/** Retrieval's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface RetrievalState {
  /**
   * Exact ranking's vectors held in memory per agent and model, the loads in progress, and the
   * limits tests set (lib/retrieval/exact.ts): loading an agent's vectors from SQLite costs far
   * more than the search, and their memory is bounded for the whole process (EXACT_MEMORY_MB).
   */
  exact: ExactVectors;
  /**
   * Each agent's list of ready chunk ids per model, as the JSON a Chroma query sends instead of
   * the agent filter, with the ready set it was made for and whether Chroma refused it
   * (lib/retrieval/id-scope.ts): making the list reads every ready document of the agent (333,000
   * ids for a large agent), and it stays valid until that agent's ready documents change.
   */
  idScopes: Map<string, IdScopeList>;
  /**
   * Per-agent feature counts for query weighting, for the most recently searched agents, with each
   * agent's line of updates, the timers of their pending writes to disk and whether the exit hook
   * that writes them is installed (lib/retrieval/corpus-stats.ts): counting a large agent's chunks
   * takes seconds, so each search brings the counts up to date instead; concurrent searches and
   * removals of one agent update them one after the other; they are written a few seconds after
   * the request that changed them, and at exit, by a hook installed once per process.
   */
  corpus: CorpusCounts;
  /**
   * Index-recall measurements in progress, per agent (lib/retrieval/index-recall.ts): a request for
   * an agent being measured joins the measurement under way, the monitor's or another request's.
   */
  indexRecallRuns: Map<number, Promise<IndexRecall>>;
}

function createRetrievalState(): RetrievalState {
  return {
    exact: {
      agents: new Map(),
      loading: new Map(),
      limits: {},
      searches: new Map(),
      quick: new Set(),
      refused: new Map(),
      saving: new Map(),
    },
    idScopes: new Map(),
    corpus: { entries: new Map(), lines: new Map(), saves: new Map(), exitHook: false },
    indexRecallRuns: new Map(),
  };
}

/** Retrieval's values, made on first use in this process. */
export const retrievalState = () => layerState("retrieval", createRetrievalState);
