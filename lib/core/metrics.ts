/** Where one pair's expected document landed; `missing` when it is no longer indexed. */
export interface PairOutcome {
  /** 1-based rank of the expected document's best chunk, null when it was not ranked at all. */
  rank: number | null;
  missing: boolean;
  /** Ranked, but farther than the no-match cut the run used: the search drops it, a miss at every k. */
  beyond_cut?: boolean;
  /** false: a question with no expected document; it counts for the cut's calibration, not for recall. */
  answerable?: boolean;
}

/** Pairs recall and MRR are computed over: answerable ones whose document is indexed. */
const scoredOf = (outcomes: PairOutcome[]) => outcomes.filter((o) => !o.missing && o.answerable !== false);

export interface Summary {
  n_pairs: number;
  /** Answerable pairs whose expected document is indexed: the denominator of recall and MRR. */
  n_scored: number;
  n_missing: number;
  /** Keys "1".."20"; null when no pair could be scored. */
  recall_at_k: Record<string, number | null>;
  mrr: number | null;
}

export const CURVE_KS = Array.from({ length: 20 }, (_, i) => i + 1);

/** Hit at k; null for a pair whose document is missing, which is neither hit nor miss. */
export function isHit(o: PairOutcome, k: number): boolean | null {
  if (o.missing || o.answerable === false) return null;
  return o.rank !== null && o.rank <= k && !o.beyond_cut;
}

export function recallAtK(outcomes: PairOutcome[], k: number): number | null {
  const scored = scoredOf(outcomes);
  if (scored.length === 0) return null;
  return scored.filter((o) => isHit(o, k)).length / scored.length;
}

export function meanReciprocalRank(outcomes: PairOutcome[]): number | null {
  const scored = scoredOf(outcomes);
  if (scored.length === 0) return null;
  return scored.reduce((sum, o) => sum + (o.rank && !o.beyond_cut ? 1 / o.rank : 0), 0) / scored.length;
}

export function summarize(outcomes: PairOutcome[], ks: number[] = CURVE_KS): Summary {
  const n_missing = outcomes.filter((o) => o.missing).length;
  return {
    n_pairs: outcomes.length,
    n_scored: scoredOf(outcomes).length,
    n_missing,
    recall_at_k: Object.fromEntries(ks.map((k) => [String(k), recallAtK(outcomes, k)])),
    mrr: meanReciprocalRank(outcomes),
  };
}
