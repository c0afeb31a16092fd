import type { PairResult } from "../db/eval-runs";

/**
 * Setting the no-match cut from labeled pairs: for each candidate cut, the share of answerable
 * pairs still answered correctly at k (their document within top k and not past the cut) and
 * the share of unanswerable pairs correctly refused (their query's closest chunk past the cut).
 * The recommended cut maximises balanced accuracy, the mean of the two, so a set with few
 * unanswerable questions still weighs refusals as much as answers.
 */

export interface CutPoint {
  /** null: no cut. */
  cut: number | null;
  answered: number;
  refused: number;
  balanced: number;
}

export interface Calibration {
  k: number;
  answerable: number;
  unanswerable: number;
  /** Every candidate, smallest cut first, ending with "no cut". */
  points: CutPoint[];
  recommended: CutPoint | null;
  /** The figures at the cut the agent has now (null: none). */
  current: CutPoint;
  /** Why no cut is recommended, when none is. */
  reason: string | null;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

function pointAt(cut: number | null, answerable: PairResult[], unanswerable: PairResult[], k: number): CutPoint {
  const within = (d: number | null) => cut === null || (d !== null && d <= cut);
  const answered = answerable.filter((r) => r.rank !== null && r.rank <= k && within(r.best_distance)).length / answerable.length;
  const refused =
    unanswerable.length === 0
      ? 0
      : unanswerable.filter((r) => r.top_distance !== null && !within(r.top_distance)).length / unanswerable.length;
  return { cut, answered, refused, balanced: (answered + refused) / 2 };
}

/**
 * Candidate cuts: halfway between consecutive distances that matter, rounded to 4 decimals, plus
 * no cut. `positive`: only cuts above 0 (distances); a reranker's scores may be of any sign.
 */
function candidates(answerable: PairResult[], unanswerable: PairResult[], positive = true): (number | null)[] {
  const distances = [...answerable.map((r) => r.best_distance), ...unanswerable.map((r) => r.top_distance)].filter(
    (d): d is number => d !== null,
  );
  const sorted = [...new Set(distances)].sort((a, b) => a - b);
  const cuts = sorted.slice(1).map((d, i) => round((sorted[i] + d) / 2));
  if (sorted.length > 0) cuts.unshift(round(positive ? Math.max(sorted[0] / 2, sorted[0] - 0.01) : sorted[0] - 0.01));
  return [...new Set(positive ? cuts.filter((c) => c > 0) : cuts), null];
}

export function calibrateCut(results: PairResult[], k: number, currentCut: number | null, positive = true): Calibration {
  const scored = results.filter((r) => !r.missing);
  const answerable = scored.filter((r) => r.answerable);
  const unanswerable = scored.filter((r) => !r.answerable);
  const base = { k, answerable: answerable.length, unanswerable: unanswerable.length };
  if (answerable.length === 0) {
    const current = { cut: currentCut, answered: 0, refused: 0, balanced: 0 };
    return {
      ...base,
      points: [],
      recommended: null,
      current,
      reason: "No answerable pair with an indexed document: there is nothing a cut could keep.",
    };
  }
  const current = pointAt(currentCut, answerable, unanswerable, k);
  if (unanswerable.length === 0) {
    return {
      ...base,
      points: [pointAt(null, answerable, unanswerable, k)],
      recommended: null,
      current,
      reason:
        "No unanswerable pairs: a cut can only be calibrated against questions the knowledge base should not answer. " +
        "Add some (a labeled pair with no expected document) and run an evaluation again.",
    };
  }
  if (unanswerable.some((r) => r.top_distance === null) || answerable.some((r) => r.best_distance === null && r.rank !== null)) {
    return {
      ...base,
      points: [],
      recommended: null,
      current,
      reason: "This run did not record the distances a calibration needs; run an evaluation again.",
    };
  }
  const points = candidates(answerable, unanswerable, positive).map((c) => pointAt(c, answerable, unanswerable, k));
  const best = Math.max(...points.map((p) => p.balanced));
  // Of the cuts that score best, the middle one: furthest from both neighbouring distances.
  const top = points.filter((p) => p.balanced === best);
  const recommended = top[Math.floor((top.length - 1) / 2)];
  return { ...base, points, recommended, current, reason: null };
}

/**
 * The cut on a reranker's score a run's pairs recommend (a run made with a reranker): the same
 * balanced accuracy, over the reranker's score of each pair's document and of each query's first
 * result, where higher is better and a result scored below the cut is dropped. Cuts are given in
 * the reranker's score, the strictest first as with distances, "no cut" (null) last.
 */
export function calibrateRerankCut(results: PairResult[], k: number, currentCut: number | null): Calibration {
  // Negated, a score reads as a distance: kept when at or under the (negated) cut.
  const flip = (x: number | null | undefined) => (x === null || x === undefined ? null : -x);
  const asDistances = results.map((r) => ({ ...r, best_distance: flip(r.rerank_score), top_distance: flip(r.top_rerank_score) }));
  const c = calibrateCut(asDistances, k, flip(currentCut), false);
  const back = (p: CutPoint): CutPoint => ({ ...p, cut: p.cut === null ? null : round(-p.cut) });
  return { ...c, points: c.points.map(back), recommended: c.recommended && back(c.recommended), current: back(c.current) };
}
