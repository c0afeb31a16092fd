import type { Reranker, RerankScore } from "./types";
import { chunkWords } from "./words";

/**
 * Maximal marginal relevance: candidates are picked one at a time, each the one with the best
 * mix of relevance (1 - its distance) and difference from those picked already (1 - the largest
 * word overlap, Jaccard over content words, with any of them), `lambda` the share of relevance.
 * Near-copies of one passage (an article uploaded twice, overlapping chunks) make room for other
 * documents. Text overlap rather than vector similarity: it needs no vectors beyond the pool's
 * distances, so it costs the same for every provider and size.
 */

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const w of a) if (b.has(w)) both++;
  return both / (a.size + b.size - both);
}

export function mmrReranker(lambda: number): Reranker {
  return {
    name: "mmr",
    version: `mmr λ=${lambda}`,
    async score(_query, _vector, pool): Promise<RerankScore[]> {
      const words = pool.map((c) => chunkWords(c.text).stems);
      const left = new Set(pool.map((_, i) => i));
      const nearest = pool.map(() => 0); // the largest overlap with a picked candidate
      const scores: RerankScore[] = pool.map(() => ({ score: 0 }));
      for (let place = 0; left.size > 0; place++) {
        let pick = -1;
        let best = Number.NEGATIVE_INFINITY;
        for (const i of left) {
          const value = lambda * (1 - pool[i].distance) - (1 - lambda) * nearest[i];
          if (value > best) [pick, best] = [i, value]; // ties: the earlier in the pool
        }
        left.delete(pick);
        // Picked earlier scores higher; the score shown is the pick's own marginal relevance.
        scores[pick] = { score: pool.length - place, features: [{ feature: "marginal_relevance", value: best, contribution: best }] };
        for (const i of left) nearest[i] = Math.max(nearest[i], jaccard(words[i], words[pick]));
      }
      return scores;
    },
  };
}
