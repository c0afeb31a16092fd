import "server-only";
import type Database from "better-sqlite3";
import { layerState } from "../core/process-state";
import type { RerankerModel } from "../core/rerankers";

/** A piece of work waiting for the next group commit (groupedWrite in lib/db/client.ts). */
export interface GroupedWrite {
  work: () => unknown;
  last?: (value: unknown) => void;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The database layer's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface DbState {
  /**
   * The SQLite connection to DATA_DIR/kb.sqlite, migrated, with its cache of compiled statements;
   * opened by lib/db/client.ts on first use. One connection and its statement cache serve the
   * whole process: opening it runs the migrations, and SQLite has one writer at a time.
   */
  connection: Database.Database | null;
  /**
   * Writes waiting for the next group commit, run together in one transaction on the next turn of
   * the event loop (groupedWrite): the writes of concurrent requests and upload jobs share one commit.
   */
  groupedWrites: GroupedWrite[];
  /**
   * When each agent's tool-call history was last pruned (agent id to epoch ms), by
   * lib/db/tool-calls.ts: prunes are spaced PRUNE_INTERVAL_MS apart over every call logged,
   * whichever request logs it.
   */
  toolCallsPrunedAt: Map<number, number>;
  /**
   * Ids of the evaluation runs executing in this process (lib/evaluation/run.ts, through
   * lib/db/eval-runs.ts): a run goes on after the request that started it answered, and a
   * 'running' row not among them was cut off by a restart and is failed.
   */
  activeRuns: Set<number>;
  /**
   * The documents each recent metadata filter matched (lib/db/metadata.ts), keyed by agent, its
   * ready set, metadataChanges and the filter: an agent's tool calls repeat a few filters, and
   * resolving one reads every document's metadata. Bounded, the least recently used dropped.
   */
  filterMatches: Map<string, Map<number, number>>;
  /** Counts this process's changes of document metadata: a cached match made before one is not used. */
  metadataChanges: number;
  /**
   * Learned rerankers read from reranker_models (lib/db/rerankers.ts), by id, with the connection
   * they were read through: rows never change, so each is parsed once per database.
   */
  rerankerModels: Map<number, { connection: Database.Database; model: RerankerModel }>;
}

function createDbState(): DbState {
  return {
    connection: null,
    groupedWrites: [],
    toolCallsPrunedAt: new Map(),
    activeRuns: new Set(),
    filterMatches: new Map(),
    metadataChanges: 0,
    rerankerModels: new Map(),
  };
}

/** The database layer's values, made on first use in this process. */
export const dbState = () => layerState("db", createDbState);
