import Link from "next/link";

/** The coverage windows offered, by their `?since=` value. */
export const WINDOWS = [
  { since: "7d", label: "7 days" },
  { since: "30d", label: "30 days" },
  { since: "90d", label: "90 days" },
  { since: "all", label: "all time" },
] as const;

/** "since 6 Nov 2026" or "ever": how a window reads in a sentence. */
export const sinceText = (since: string | null) =>
  since === null ? "ever" : `since ${new Date(since).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" })}`;

/** Links that set the window the Documents tab counts retrievals over. */
export function CoverageWindow({ agentId, current }: { agentId: number; current: string }) {
  return (
    <nav aria-label="Coverage window" className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-slate-600">Retrieved in the last</span>
      {WINDOWS.map((w) => (
        <Link
          key={w.since}
          href={`/agents/${agentId}?since=${w.since}`}
          aria-current={w.since === current ? "page" : undefined}
          className={`rounded px-2 py-0.5 ${w.since === current ? "bg-blue-100 font-medium text-blue-900" : "text-blue-700 underline"}`}
        >
          {w.label}
        </Link>
      ))}
    </nav>
  );
}
