import type { CorpusStats, QueryWord } from "../types";
import { wordFeatureId } from "./feature-ids";
import { contentTokens } from "./tokenizer";

/** Queries weighted by BM25's IDF of each feature among the searched agent's chunks. */
export const QUERY_WEIGHTING = "agent-idf-v1";

/** Per-feature factors applied to a query's features (1 leaves a feature as it is). */
export interface QueryWeights {
  weight(feature: number): number;
}

/** BM25's inverse document frequency of each feature in a corpus; unseen features get the most. */
export function idfWeights(corpus: CorpusStats): QueryWeights {
  const n = corpus.chunks;
  return {
    weight: (f) => {
      const df = corpus.df.get(f);
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    },
  };
}

/** The weights queries get for a corpus; none for a corpus without chunks. */
export function corpusWeights(corpus: CorpusStats): QueryWeights | undefined {
  return corpus.chunks > 0 ? idfWeights(corpus) : undefined;
}

/**
 * The query's content words (one per stem, in query order) with the factor query weighting gives
 * their word feature. Their n-grams, word pairs and word vectors get factors from their own
 * counts in the same way.
 */
export function explainQueryWords(query: string, corpus: CorpusStats): QueryWord[] {
  const weights = corpusWeights(corpus);
  const seen = new Set<number>();
  const out: QueryWord[] = [];
  for (const { text } of contentTokens(query)) {
    const f = wordFeatureId(text);
    if (seen.has(f)) continue;
    seen.add(f);
    out.push({ word: text, chunks: corpus.df.get(f), weight: weights ? weights.weight(f) : 1 });
  }
  return out;
}
