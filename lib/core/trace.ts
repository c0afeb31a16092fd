import type { RetrievalMode } from "./retrieval-mode";

/** One result as the log keeps it: enough to compare with a later run, without the text. */
export interface TracedResult {
  document_id: number;
  chunk_index: number;
  filename: string;
  score: number;
}

/**
 * What one query returned and under which settings: kept with the agent's logged calls, so a
 * question can be replayed later and compared (lib/questions/replay.ts).
 */
export interface RetrievalTrace {
  model: string;
  mode: RetrievalMode;
  /** The no-match cut that applied (null: none). */
  cut: number | null;
  top_k: number;
  /** The reranker that ordered the results, by version (absent: none). */
  reranker?: string;
  /** The cut on the reranker's score that applied (absent or null: none). */
  rerank_cut?: number | null;
  /** Distance of the nearest ready chunk before the cut (null: the agent had none). */
  best: number | null;
  /** The nearest ready chunk before the cut: the closest article even when the cut refused the query. */
  nearest: TracedResult | null;
  results: TracedResult[];
}

export const traced = (r: TracedResult): TracedResult => ({
  document_id: r.document_id,
  chunk_index: r.chunk_index,
  filename: r.filename,
  score: r.score,
});

/** True when a cut refused the query: a nearest chunk exists, but nothing was within the cut (or above the reranker's). */
export const refusedByCut = (t: RetrievalTrace) =>
  t.results.length === 0 && t.best !== null && ((t.cut !== null && t.best > t.cut) || (t.rerank_cut ?? null) !== null);

export type SearchEnding = "answered" | "refused" | "no results";
/** How a search ended: results, refused by the cut, or nothing to return. */
export const searchEnding = (t: RetrievalTrace): SearchEnding =>
  t.results.length > 0 ? "answered" : refusedByCut(t) ? "refused" : "no results";
