/** Retrieval quality from the 1-based rank of each query's expected document (null: never found). */
export interface Quality {
  n: number;
  recall: Record<number, number>;
  mrr: number;
}

export const REPORTED_K = [1, 3, 5, 10] as const;

export function quality(ranks: (number | null)[], ks: readonly number[] = REPORTED_K): Quality {
  const n = ranks.length;
  const recall: Record<number, number> = {};
  for (const k of ks) recall[k] = n === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / n;
  const mrr = n === 0 ? 0 : ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / r), 0) / n;
  return { n, recall, mrr };
}

/**
 * Rank of the first chunk of `expected` in a ranking of chunks, as the product's evaluation
 * counts it (chunks of other documents ahead of it count, no k limit).
 */
export function rankOf<T>(ranking: readonly T[], isExpected: (item: T) => boolean): number | null {
  const i = ranking.findIndex(isExpected);
  return i < 0 ? null : i + 1;
}
