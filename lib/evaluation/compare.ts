import { isHit } from "../core/metrics";

export type Change = "regression" | "fix" | "worse" | "better" | "same" | "missing" | "new" | "dropped";

/** Regressions first: they are what a comparison is for. */
export const CHANGE_ORDER: Change[] = ["regression", "fix", "worse", "better", "missing", "new", "dropped", "same"];

interface Outcome {
  query: string;
  expected: string;
  rank: number | null;
  best_distance: number | null;
  missing: boolean;
}

export interface ComparedPair {
  query: string;
  expected: string;
  base: Outcome | null;
  head: Outcome | null;
  change: Change;
}

export interface Comparison {
  k: number;
  rows: ComparedPair[];
  counts: Record<Change, number>;
}

const key = (o: Outcome) => `${o.query}\u0000${o.expected}`;
const rankOrInf = (o: Outcome) => o.rank ?? Number.POSITIVE_INFINITY;

function classify(base: Outcome | null, head: Outcome | null, k: number): Change {
  if (!base) return "new";
  if (!head) return "dropped";
  if (base.missing || head.missing) return "missing";
  const [was, is] = [isHit(base, k), isHit(head, k)];
  if (was && !is) return "regression";
  if (!was && is) return "fix";
  const [a, b] = [rankOrInf(base), rankOrInf(head)];
  return b > a ? "worse" : b < a ? "better" : "same";
}

/** Per-pair wins (fixes) and losses (regressions) at k between an earlier run and a later one. */
export function compareRuns(base: Outcome[], head: Outcome[], k: number): Comparison {
  const byKey = new Map<string, { base: Outcome | null; head: Outcome | null }>();
  for (const o of base) byKey.set(key(o), { base: o, head: null });
  for (const o of head) byKey.set(key(o), { base: byKey.get(key(o))?.base ?? null, head: o });
  const rows = [...byKey.values()].map(({ base: b, head: h }) => {
    const o = (h ?? b)!;
    return { query: o.query, expected: o.expected, base: b, head: h, change: classify(b, h, k) };
  });
  // Within a group, the biggest rank movement first.
  const shift = (r: ComparedPair) => (r.base && r.head ? Math.abs(Math.min(rankOrInf(r.head), 1e9) - Math.min(rankOrInf(r.base), 1e9)) : 0);
  rows.sort(
    (x, y) => CHANGE_ORDER.indexOf(x.change) - CHANGE_ORDER.indexOf(y.change) || shift(y) - shift(x) || x.query.localeCompare(y.query),
  );
  const counts = Object.fromEntries(CHANGE_ORDER.map((c) => [c, 0])) as Record<Change, number>;
  for (const r of rows) counts[r.change]++;
  return { k, rows, counts };
}

/**
 * The two runs of a comparison as earlier and later, whichever way they were picked, so a pair
 * added between them reads as new rather than removed; `swapped` says the pick was reversed.
 */
export function inTimeOrder<R extends { id: number; created_at: string }>(a: R, b: R): { earlier: R; later: R; swapped: boolean } {
  const after = a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id);
  return after ? { earlier: b, later: a, swapped: true } : { earlier: a, later: b, swapped: false };
}
