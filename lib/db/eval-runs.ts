import "server-only";
import type { PairSource } from "../validations/pair";
import { notFound } from "../core/errors";
import type { Summary } from "../core/metrics";
import type { ChunkStrategy } from "../core/chunking";
import type { RetrievalMode } from "../validations/agent";
import type { RerankerName } from "../core/rerankers";
import { dbState } from "./state";
import { db, now } from "./client";

export type RunStatus = "running" | "done" | "failed";

export interface ChunkSetting {
  chunk_size: number;
  chunk_overlap: number;
  /** Absent in runs recorded before there was a choice: those documents were fixed windows. */
  chunk_strategy?: ChunkStrategy;
  documents: number;
}

export interface EvalRun {
  id: number;
  agent_id: number;
  k: number;
  status: RunStatus;
  error: string | null;
  done_pairs: number;
  n_pairs: number;
  n_missing: number;
  /** Pairs with no expected document: left out of recall and MRR, used to calibrate the no-match cut. */
  n_unanswerable: number;
  embedding_model: string;
  /** Embedder.queryWeighting at the time of the run; null: queries were not weighted. */
  query_weighting: string | null;
  document_count: number;
  chunk_count: number;
  chunk_settings: ChunkSetting[];
  /** The no-match cut in effect for the run (null: none). */
  max_distance: number | null;
  /** How the run ranked: vector, keyword or hybrid (lib/retrieval/modes.ts). */
  retrieval_mode: RetrievalMode;
  /** The pairs the run scored: of one source (lib/validations/pair.ts), or all (null). */
  pair_source: PairSource | null;
  /** The reranker the run ranked with ('none': the mode's order), and its version (a learned model's id and labels, an endpoint). */
  reranker: RerankerName;
  reranker_version: string | null;
  recall_at_k: Record<string, number | null> | null;
  mrr: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface PairResult {
  pair_id: number | null;
  query: string;
  expected: string;
  document_id: number | null;
  rank: number | null;
  best_distance: number | null;
  /** Distance of the query's closest chunk of any document (what a no-match cut is compared with). */
  top_distance: number | null;
  missing: boolean;
  /** The expected document's best chunk is past the run's no-match cut: a miss at every k. */
  beyond_cut: boolean;
  /** false: the pair has no expected document (a question that should get no answer). */
  answerable: boolean;
  /** In a run with a reranker: its score of the expected document's best chunk in the pool (null: not in it), and of the query's first result. */
  rerank_score?: number | null;
  top_rerank_score?: number | null;
}

type RunRow = Omit<EvalRun, "chunk_settings" | "recall_at_k"> & { chunk_settings: string; recall_at_k: string | null };

const toRun = (r: RunRow): EvalRun => ({
  ...r,
  chunk_settings: JSON.parse(r.chunk_settings),
  recall_at_k: r.recall_at_k ? JSON.parse(r.recall_at_k) : null,
});

export const INTERRUPTED = "interrupted: the server stopped before the run finished";

// Runs executing in this process; a 'running' row outside it was cut off by a restart.
export const activeRuns = (): Set<number> => dbState().activeRuns;

function sweepInterrupted(agentId: number): void {
  const running = db().prepare("SELECT id FROM eval_runs WHERE agent_id = ? AND status = 'running'").all(agentId) as { id: number }[];
  for (const { id } of running) if (!activeRuns().has(id)) failRun(id, INTERRUPTED);
}

const SELECT = `SELECT r.*,
  (SELECT COUNT(*) FROM eval_results e WHERE e.run_id = r.id AND e.missing = 1) AS n_missing,
  (SELECT COUNT(*) FROM eval_results e WHERE e.run_id = r.id AND e.answerable = 0) AS n_unanswerable
  FROM eval_runs r`;

export function createRun(
  s: Omit<
    EvalRun,
    "id" | "status" | "error" | "done_pairs" | "n_missing" | "n_unanswerable" | "recall_at_k" | "mrr" | "created_at" | "finished_at"
  >,
): number {
  const { lastInsertRowid } = db()
    .prepare(
      `INSERT INTO eval_runs (agent_id, k, status, n_pairs, embedding_model, query_weighting, document_count, chunk_count, chunk_settings, max_distance,
         retrieval_mode, pair_source, reranker, reranker_version, created_at)
       VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      s.agent_id,
      s.k,
      s.n_pairs,
      s.embedding_model,
      s.query_weighting,
      s.document_count,
      s.chunk_count,
      JSON.stringify(s.chunk_settings),
      s.max_distance,
      s.retrieval_mode,
      s.pair_source,
      s.reranker,
      s.reranker_version,
      now(),
    );
  return Number(lastInsertRowid);
}

/** Writes a run's results (the caller's transaction makes them one write). */
function insertResults(runId: number, results: PairResult[]): void {
  const insert = db().prepare(
    `INSERT INTO eval_results (run_id, pair_id, query, expected, document_id, rank, best_distance, top_distance, missing, beyond_cut, answerable,
       rerank_score, top_rerank_score)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of results) {
    insert.run(
      runId,
      r.pair_id,
      r.query,
      r.expected,
      r.document_id,
      r.rank,
      r.best_distance,
      r.top_distance,
      r.missing ? 1 : 0,
      r.beyond_cut ? 1 : 0,
      r.answerable ? 1 : 0,
      r.rerank_score ?? null,
      r.top_rerank_score ?? null,
    );
  }
}

/** Stores one batch of results and moves the progress counter, together. */
export function saveResults(runId: number, results: PairResult[]): void {
  db().transaction(() => {
    insertResults(runId, results);
    db().prepare("UPDATE eval_runs SET done_pairs = done_pairs + ? WHERE id = ?").run(results.length, runId);
  })();
}

export function finishRun(runId: number, summary: Summary): void {
  db()
    .prepare("UPDATE eval_runs SET status = 'done', recall_at_k = ?, mrr = ?, finished_at = ? WHERE id = ?")
    .run(JSON.stringify(summary.recall_at_k), summary.mrr, now(), runId);
}

export function failRun(runId: number, message: string): void {
  db()
    .prepare("UPDATE eval_runs SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND status = 'running'")
    .run(message, now(), runId);
}

/**
 * Deletes the agent's finished (done or failed) runs older than its newest `keep` finished ones,
 * with their per-pair rows; a running run is never touched. Returns how many runs went.
 */
export function pruneRuns(agentId: number, keep: number): number {
  const d = db();
  return d.transaction(() => {
    const oldestKept = d
      .prepare("SELECT id FROM eval_runs WHERE agent_id = ? AND status != 'running' ORDER BY id DESC LIMIT 1 OFFSET ?")
      .get(agentId, keep - 1) as { id: number } | undefined;
    if (!oldestKept) return 0;
    const older = "SELECT id FROM eval_runs WHERE agent_id = ? AND status != 'running' AND id < ?";
    d.prepare(`DELETE FROM eval_results WHERE run_id IN (${older})`).run(agentId, oldestKept.id);
    return d.prepare(`DELETE FROM eval_runs WHERE id IN (${older})`).run(agentId, oldestKept.id).changes;
  })();
}

/** The agent's runs, oldest first. */
export function listRuns(agentId: number): EvalRun[] {
  sweepInterrupted(agentId);
  return (db().prepare(`${SELECT} WHERE r.agent_id = ? ORDER BY r.id`).all(agentId) as RunRow[]).map(toRun);
}

export function findRun(agentId: number, runId: number): EvalRun | undefined {
  sweepInterrupted(agentId);
  const row = db().prepare(`${SELECT} WHERE r.id = ? AND r.agent_id = ?`).get(runId, agentId) as RunRow | undefined;
  return row && toRun(row);
}

export function getRun(agentId: number, runId: number): EvalRun {
  const run = findRun(agentId, runId);
  if (!run) throw notFound(`Evaluation run ${runId} of agent ${agentId}`);
  return run;
}

/** Results in the order of the pairs when the run started. */
export function runResults(runId: number): PairResult[] {
  const rows = db()
    .prepare(
      `SELECT pair_id, query, expected, document_id, rank, best_distance, top_distance, missing, beyond_cut, answerable, rerank_score, top_rerank_score
       FROM eval_results WHERE run_id = ? ORDER BY rowid`,
    )
    .all(runId) as (Omit<PairResult, "missing" | "beyond_cut" | "answerable"> & {
    missing: number;
    beyond_cut: number;
    answerable: number;
  })[];
  return rows.map((r) => ({ ...r, missing: r.missing === 1, beyond_cut: r.beyond_cut === 1, answerable: r.answerable === 1 }));
}

/** A finished run of another instance with its per-pair rows, as history (lib/transfer/import.ts), in one transaction. */
export function insertFinishedRun(
  agentId: number,
  run: Omit<EvalRun, "id" | "agent_id" | "n_missing" | "n_unanswerable">,
  results: PairResult[],
): number {
  return db().transaction(() => {
    const { lastInsertRowid } = db()
      .prepare(
        `INSERT INTO eval_runs (agent_id, k, status, error, done_pairs, n_pairs, embedding_model, query_weighting, document_count, chunk_count,
           chunk_settings, max_distance, retrieval_mode, pair_source, reranker, reranker_version, recall_at_k, mrr, created_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        agentId,
        run.k,
        run.status,
        run.error,
        run.done_pairs,
        run.n_pairs,
        run.embedding_model,
        run.query_weighting,
        run.document_count,
        run.chunk_count,
        JSON.stringify(run.chunk_settings),
        run.max_distance,
        run.retrieval_mode,
        run.pair_source,
        run.reranker ?? "none",
        run.reranker_version ?? null,
        run.recall_at_k ? JSON.stringify(run.recall_at_k) : null,
        run.mrr,
        run.created_at,
        run.finished_at,
      );
    const runId = Number(lastInsertRowid);
    insertResults(runId, results);
    return runId;
  })();
}
