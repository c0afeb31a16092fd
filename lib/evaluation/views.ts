import type { Pair } from "../db/pairs";
import { isHit } from "../core/metrics";
import { beyondCut } from "../retrieval/cut";
import type { EvalRun, PairResult } from "../db/eval-runs";

/**
 * The API's view of one pair's result: hit at the run's k (null when the document is missing or
 * the pair is unanswerable); for an unanswerable pair, whether the run's cut refused it.
 */
export const pairResultView = (r: PairResult, k: number, cut: number | null = null) => ({
  query: r.query,
  expected: r.expected,
  answerable: r.answerable,
  refused: r.answerable ? null : beyondCut(r.top_distance, cut),
  document_id: r.document_id,
  rank: r.rank,
  best_distance: r.best_distance,
  top_distance: r.top_distance,
  beyond_cut: r.beyond_cut,
  hit: isHit(r, k),
  missing: r.missing,
});

export function runView(run: EvalRun, results?: PairResult[]) {
  return {
    run_id: run.id,
    status: run.status,
    error: run.error,
    k: run.k,
    n_pairs: run.n_pairs,
    done_pairs: run.done_pairs,
    n_missing: run.n_missing,
    n_unanswerable: run.n_unanswerable,
    n_scored: run.status === "done" ? run.n_pairs - run.n_missing - run.n_unanswerable : null,
    recall_at_k: run.recall_at_k,
    mrr: run.mrr,
    settings: {
      embedding_model: run.embedding_model,
      query_weighting: run.query_weighting,
      document_count: run.document_count,
      chunk_count: run.chunk_count,
      chunk_settings: run.chunk_settings,
      max_distance: run.max_distance,
      retrieval_mode: run.retrieval_mode,
      pair_source: run.pair_source,
      reranker: run.reranker,
      reranker_version: run.reranker_version,
    },
    created_at: run.created_at,
    finished_at: run.finished_at,
    ...(results ? { pairs: results.map((r) => pairResultView(r, run.k, run.max_distance)) } : {}),
  };
}

export const pairView = (p: Pair) => ({
  id: p.id,
  query: p.query,
  expected: p.expected_filename,
  answerable: p.expected_filename !== "",
  note: p.note,
  source: p.source,
  status: p.status,
  filter: p.filter,
  created_at: p.created_at,
  updated_at: p.updated_at,
});
