import type { RetrievalMode } from "./retrieval-mode";

/**
 * The rerank stage's names, defaults and stored shapes (lib/rerank/, the stage in
 * lib/retrieval/rerank.ts): here in lib/core so that validation, the database layer and the
 * transfer format can name them without depending on the rerankers themselves.
 */

/** The rerankers an agent can switch on (PATCH /api/agents/{id} `{"reranker"}`); `none` is the default. */
export const RERANKERS = ["none", "mmr", "learned", "http", "chat"] as const;
export type RerankerName = (typeof RERANKERS)[number];

/** How many candidates are reranked by default, and the bounds of `rerank_candidates`. */
export const DEFAULT_RERANK_CANDIDATES = 50;
export const MAX_RERANK_CANDIDATES = 200;
/** MMR's default lambda: the share of relevance against diversity (1: relevance only). */
export const DEFAULT_MMR_LAMBDA = 0.7;

/** The learned reranker's model: a linear score over standardized features (lib/rerank/linear.ts). */
export interface LinearModel {
  features: readonly string[];
  /** Each feature's mean and spread over the training pools: a feature is scored as (x - mean) / scale. */
  mean: number[];
  scale: number[];
  weights: number[];
}

/** One labeled question the reranker learned from: the group of same-worded questions it belongs to, its words, its vector. */
export interface LabeledQuestion {
  group: number;
  stems: string[];
  vector: Float32Array | null;
}

/** The labeled questions by expected document name: what the label features compare a query with. */
export type LabelIndex = Map<string, LabeledQuestion[]>;

/** Recall@k and MRR over questions, with or without a reranker. */
export interface Scores {
  recall_at_k: Record<string, number>;
  mrr: number;
}

/** A trained model's cross-validation: each question ranked once, by a model that never saw it. */
export interface CrossValidation {
  folds: number;
  /** Labeled questions ranked (distinct wordings with an expected document the agent has ready). */
  questions: number;
  /** The k the decision is made at. */
  k: number;
  without: Scores;
  with: Scores;
  /** Whether the model beats the mode's own order on the held-out questions: higher MRR, and recall@k no lower. */
  wins: boolean;
}

/** A trained model as stored (lib/db/rerankers.ts). */
export interface RerankerModel {
  id: number;
  agent_id: number;
  /** The retrieval mode whose pools it learned to reorder. */
  mode: RetrievalMode;
  labels: number;
  /** The labels it learned from, as a fingerprint: a change to the agent's labels makes it stale. */
  labels_stamp: string;
  model: LinearModel;
  label_index: LabelIndex;
  cross_validation: CrossValidation;
  wins: boolean;
  created_at: string;
}
