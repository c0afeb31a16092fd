/** "cut": ranked, but past the run's no-match cut, so the search dropped it (a miss). */
export type Outcome = "hit" | "miss" | "cut" | "missing";

const STYLE: Record<Outcome, { label: string; className: string }> = {
  hit: { label: "Hit", className: "bg-green-100 text-green-800" },
  miss: { label: "Miss", className: "bg-red-100 text-red-800" },
  cut: { label: "Miss: past the cut", className: "bg-red-100 text-red-800" },
  missing: { label: "Not indexed", className: "bg-amber-100 text-amber-900" },
};

export const outcomeOf = (r: { rank: number | null; missing: boolean; beyondCut?: boolean }, k: number): Outcome =>
  r.missing ? "missing" : r.beyondCut && r.rank !== null ? "cut" : r.rank !== null && r.rank <= k ? "hit" : "miss";

export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  const s = STYLE[outcome];
  return <span className={`rounded px-2 py-0.5 text-xs font-medium ${s.className}`}>{s.label}</span>;
}

export const rankText = (r: { rank: number | null; missing: boolean }) => (r.missing ? "—" : r.rank === null ? "not found" : String(r.rank));
export const distanceText = (d: number | null) => (d === null ? "—" : d.toFixed(4));
