import MiniSearch from "minisearch";

/**
 * BM25 baseline (MiniSearch's BM25+ scoring) over the same chunks the vector index holds.
 * `processTerm` lets a run add stemming and stopwords, so the baseline is as strong as the
 * text processing the embedder itself uses.
 */
export class Bm25Index {
  private readonly search: MiniSearch<{ id: number; text: string }>;

  constructor(chunks: readonly string[], processTerm?: (term: string) => string | null) {
    this.search = new MiniSearch<{ id: number; text: string }>({
      fields: ["text"],
      idField: "id",
      ...(processTerm ? { processTerm: (t: string) => processTerm(t.toLowerCase()) ?? null } : {}),
    });
    this.search.addAll(chunks.map((text, id) => ({ id, text })));
  }

  /** Chunk indexes ranked by BM25 score for the query (any term may match), best first. */
  rank(query: string): number[] {
    return this.search.search(query, { combineWith: "OR" }).map((r) => r.id as number);
  }
}
