/**
 * "cut": ranked, but past the run's no-match cut, so the search dropped it (a miss).
 * "refused" / "answered": an unanswerable pair the cut did / did not leave without results.
 */
export type Outcome = "hit" | "miss" | "cut" | "missing" | "refused" | "answered";

const STYLE: Record<Outcome, { label: string; className: string }> = {
  hit: { label: "Hit", className: "bg-green-100 text-green-800" },
  miss: { label: "Miss", className: "bg-red-100 text-red-800" },
  cut: { label: "Miss: past the cut", className: "bg-red-100 text-red-800" },
  missing: { label: "Not indexed", className: "bg-amber-100 text-amber-900" },
  refused: { label: "Refused", className: "bg-green-100 text-green-800" },
  answered: { label: "Answered", className: "bg-red-100 text-red-800" },
};

interface OutcomeOf {
  rank: number | null;
  missing: boolean;
  beyondCut?: boolean;
  /** false: no document should answer the query; `refused` says whether the cut left it without results. */
  answerable?: boolean;
  refused?: boolean | null;
}

export function outcomeOf(r: OutcomeOf, k: number): Outcome {
  if (r.answerable === false) return r.refused ? "refused" : "answered";
  if (r.missing) return "missing";
  if (r.beyondCut && r.rank !== null) return "cut";
  return r.rank !== null && r.rank <= k ? "hit" : "miss";
}

/** The outcomes that are wrong: what "only misses" keeps. */
export const isWrong = (o: Outcome) => o === "miss" || o === "cut" || o === "answered";

export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  const s = STYLE[outcome];
  return <span className={`rounded px-2 py-0.5 text-xs font-medium ${s.className}`}>{s.label}</span>;
}

export const rankText = (r: { rank: number | null; missing: boolean; answerable?: boolean }) =>
  r.missing || r.answerable === false ? "—" : r.rank === null ? "not found" : String(r.rank);
export const distanceText = (d: number | null) => (d === null ? "—" : d.toFixed(4));
