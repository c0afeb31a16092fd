import type { AgentView } from "../db/agent-view";
import type { Collection } from "../vector-store/client";
import type { RankedChunk } from "../vector-store/chunks";
import type { PageRange } from "../core/pages";
import type { RetrievalMode } from "../validations/agent";
import type { FeatureShare, Reranker } from "../rerank/types";

/** The values the stages of the read path (lib/retrieval/read-path.ts) hand each other. */

/** Where one read ranks: the agent, the collection of the model that embedded its chunks, the query vectors. */
export interface ReadTarget {
  agent: AgentView;
  collection: Collection;
  /** The embedding model of the queries and of the chunks ranked. */
  model: string;
  vectors: number[][];
}

/** A search's read: its target and the queries' text (the keyword side ranks by it). */
export interface ReadContext extends ReadTarget {
  queries: string[];
}

/** The rerank stage of one read: the reranker, and how many of the mode's first candidates it orders. */
export interface ReadRerank {
  reranker: Reranker;
  candidates: number;
}

/** How a search reads: the mode it ranks in, how many results, the no-match cut (null: none), and the reranker (absent: none). */
export interface ReadOptions {
  mode: RetrievalMode;
  topK: number;
  cut: number | null;
  rerank?: ReadRerank;
  /** The cut on the reranker's score (lib/retrieval/cut.ts), null or absent: none. */
  rerankCut?: number | null;
}

/** How many of the mode's order a read hands on: its top_k, or the reranker's pool when that is larger. */
export const poolSize = (opts: Pick<ReadOptions, "topK" | "rerank">) =>
  opts.rerank ? Math.max(opts.topK, opts.rerank.candidates) : opts.topK;

/** Where the reranker put a chunk: its score (higher is better), its place in the pool before, and what moved the score. */
export interface RerankPlace {
  rerank_score: number;
  pool_rank: number;
  rerank_features?: FeatureShare[];
}

/** Where a chunk stood in each list a keyword or hybrid ranking is made of. */
export interface ModePlaces {
  /** 1-based rank in the vector ranking; null when it is below the part of that list that was read. */
  vector_rank: number | null;
  /** 1-based rank among the keyword matches; null when its words do not match the query's. */
  keyword_rank: number | null;
  /** bm25 of the keyword match (lower is better), null without one. */
  bm25: number | null;
  /** Hybrid only: 1-based rank after fusion. */
  fused_rank?: number;
}

/** A chunk as a ranking stage hands it on: its raw distance, and its places in a fused mode's lists. */
export type PlacedChunk = RankedChunk & { places?: ModePlaces; rerank?: RerankPlace };

export interface SearchResult {
  chunk_text: string;
  /** The header of the table whose rows the chunk holds without it (lib/core/tables.ts); absent for every other chunk. */
  context?: string;
  /** The PDF pages the chunk lies on (lib/core/pages.ts); absent for a document without pages. */
  pages?: PageRange;
  /** Chroma's raw distance in the collection's space: lower is better. */
  score: number;
  document_id: number;
  filename: string;
  chunk_index: number;
}

/** A result of a keyword or hybrid search: the chunk, and where it stood in each list. */
export interface RankedResult extends SearchResult, ModePlaces {}

/** A result as the inspector shows it: where it stood in each list, and where the reranker put it. */
export type InspectedResult = SearchResult & Partial<ModePlaces> & Partial<RerankPlace>;

/** A stage of ranking (lib/retrieval/read-path.ts): each query's list in, in a new order (or fewer of it) out. */
export type RankStage = (read: ReadContext, lists: PlacedChunk[][], opts: ReadOptions) => Promise<PlacedChunk[][]>;
