import type { AgentView } from "../db/agent-view";
import type { Collection } from "../vector-store/client";
import type { RankedChunk } from "../vector-store/chunks";
import type { RetrievalMode } from "../validations/agent";

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

/** How a search reads: the mode it ranks in, how many results, and the no-match cut (null: none). */
export interface ReadOptions {
  mode: RetrievalMode;
  topK: number;
  cut: number | null;
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
export type PlacedChunk = RankedChunk & { places?: ModePlaces };

export interface SearchResult {
  chunk_text: string;
  /** Chroma's raw distance in the collection's space: lower is better. */
  score: number;
  document_id: number;
  filename: string;
  chunk_index: number;
}

/** A result of a keyword or hybrid search: the chunk, and where it stood in each list. */
export interface RankedResult extends SearchResult, ModePlaces {}
