import type { QueryWord } from "./types";

/**
 * A query's words as the inspector shows them: the words some chunk has, weightiest first, and
 * apart the words no chunk has. Those get the largest factor, but no chunk shares their
 * spelling, so they can only match by meaning and would mislead at the head of the list.
 */
export function groupQueryWords(words: QueryWord[]): { inChunks: QueryWord[]; inNoChunk: QueryWord[] } {
  return {
    // A stable sort: words of equal weight stay in query order.
    inChunks: words.filter((w) => w.chunks > 0).sort((a, b) => b.weight - a.weight),
    inNoChunk: words.filter((w) => w.chunks === 0),
  };
}
