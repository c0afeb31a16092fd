import Link from "next/link";
import type { GapList, GapView } from "@/lib/questions/gaps";
import { inspectorHref } from "@/components/eval/inspector-link";
import { DataTable, type Column } from "@/components/ui/data-table";
import { FileName } from "@/components/ui/file-name";
import { plural } from "@/lib/format/plural";

const WHY: Record<GapView["why"], (limit: number | null) => string> = {
  marked: () => "marked as a gap",
  refused: () => "refused by the no-match cut each time",
  far: (limit) => `never nearer than ${limit ?? "the limit"}`,
};

const distance = (d: number) => <span className="font-mono text-xs text-slate-600">{d.toFixed(4)}</span>;

function columns(agentId: number, limit: number | null): Column<GapView>[] {
  return [
    { id: "question", header: "Question", className: "min-w-[12rem] [overflow-wrap:anywhere]", cell: (g) => g.text },
    { id: "asked", header: "Asked", className: "tabular-nums", cell: (g) => g.asked.toLocaleString("en") },
    { id: "why", header: "Why", cell: (g) => WHY[g.why](limit) },
    {
      id: "closest",
      header: "Closest document",
      cell: (g) =>
        g.closest ? (
          <>
            <FileName name={g.closest.filename} /> {distance(g.closest.score)}
          </>
        ) : (
          <span className="text-slate-500">none</span>
        ),
    },
    {
      id: "answered",
      header: "Answered by",
      cell: (g) =>
        g.answered_by ? (
          <span className="inline-flex flex-wrap items-baseline gap-x-1.5">
            <span className="rounded bg-green-100 px-1.5 py-0.5 text-xs font-medium text-green-800">answered</span>{" "}
            <FileName name={g.answered_by.filename} /> {distance(g.answered_by.score)}
          </span>
        ) : g.nearer_now ? (
          <span className="text-slate-700">
            not judged: <FileName name={g.nearer_now.filename} /> {distance(g.nearer_now.score)} is nearer now (set a no-match cut to judge)
          </span>
        ) : (
          <span className="text-slate-600">not yet</span>
        ),
    },
    {
      id: "inspect",
      header: <span className="sr-only">Inspect</span>,
      cell: (g) => (
        <Link href={inspectorHref(agentId, g.text, 3, g.answered_by?.document_id ?? null)} className="text-blue-700 underline">
          Inspect<span className="sr-only"> gap “{g.text}”</span>
        </Link>
      ),
    },
  ];
}

/** The articles to write: questions nothing answers, each asked again now to see whether a new document does. */
export function GapsSection({ agentId, list, error }: { agentId: number; list: GapList | null; error: string | null }) {
  const answered = list?.gaps.filter((g) => g.answered_by).length ?? 0;
  const limit = list?.limit ?? null;
  return (
    <section aria-labelledby="gaps-heading" className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="gaps-heading" className="text-lg font-semibold">
          Gaps
        </h2>
        {list && list.gaps.length > 0 && (
          <a href={`/api/agents/${agentId}/gaps?format=csv`} download className="text-sm text-blue-700 underline">
            Download CSV
          </a>
        )}
      </div>
      <p className="max-w-3xl text-sm text-slate-600">
        {limit === null
          ? "Questions no article answers yet: those marked Gap (this agent has no no-match cut, so no question is refused by one)."
          : `Questions no article answers yet: those marked Gap, and open ones the no-match cut refused every time or whose closest chunk never came nearer than ${limit}.`}{" "}
        Each is searched again now: when a document added since ranks first{" "}
        {limit === null
          ? "and nearer than anything it got, it is shown, but without a cut nothing says how near answers"
          : "within that distance, the gap shows as answered by it"}
        .
      </p>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          The gaps could not be checked now: {error}
        </p>
      ) : !list || list.gaps.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-600">
          No gaps: every question asked came near an article, or was triaged otherwise.
        </p>
      ) : (
        <>
          <p className="text-sm text-slate-700">
            {plural(list.gaps.length, "gap")}
            {answered > 0 ? `, ${answered} answered by a document added since` : ""}.
          </p>
          <DataTable caption="Gaps" columns={columns(agentId, limit)} rows={list.gaps} rowKey={(g) => g.id} stacked />
        </>
      )}
    </section>
  );
}
