import type { RerankerName } from "../core/rerankers";

/**
 * The rerank stage's parts (lib/retrieval/rerank.ts): a reranker takes one query's candidate
 * pool, the agent's mode order cut to its `rerank_candidates`, and scores each candidate; the
 * pool is then ordered by that score (higher first, ties by the pool's own order) and cut to top_k.
 */

export { DEFAULT_MMR_LAMBDA, DEFAULT_RERANK_CANDIDATES, MAX_RERANK_CANDIDATES, RERANKERS, type RerankerName } from "../core/rerankers";

/** One candidate as a reranker sees it: the chunk, its text and document, and its place in the pool. */
export interface RerankCandidate {
  document_id: number;
  chunk_index: number;
  filename: string;
  text: string;
  /** Raw vector distance (lower is better). */
  distance: number;
  /** 1-based place in the pool (the mode's order). */
  pool_rank: number;
  /** 1-based rank in the vector list, when read. */
  vector_rank: number | null;
  /** 1-based rank among the keyword matches, null without one. */
  keyword_rank: number | null;
  /** bm25 of the keyword match (lower is better), null without one. */
  bm25: number | null;
}

/** What moved one candidate's score: a feature's name, its value, and its share of the score. */
export interface FeatureShare {
  feature: string;
  value: number;
  contribution: number;
}

/** One candidate's reranker score (higher is better), and for the learned reranker what moved it. */
export interface RerankScore {
  score: number;
  features?: FeatureShare[];
}

/** A reranker: scores every candidate of a query's pool, in pool order. */
export interface Reranker {
  name: RerankerName;
  /** What the score comes from, for the inspector and a run's record, e.g. "learned v3" or "bge-reranker at http://…". */
  version: string;
  score(query: string, queryVector: number[], pool: RerankCandidate[]): Promise<RerankScore[]>;
}
