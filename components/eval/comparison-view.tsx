import Link from "next/link";
import type { Change, Comparison, ComparedPair } from "@/lib/evaluation/compare";
import { DataTable, type Column } from "@/components/ui/data-table";
import { plural } from "@/lib/format/plural";
import { FileName } from "@/components/ui/file-name";
import { inspectorHref } from "./inspector-link";
import { rankText } from "./outcome-badge";

const LABEL: Record<Change, { text: string; className: string }> = {
  regression: { text: "Regression", className: "bg-red-100 text-red-800" },
  fix: { text: "Fixed", className: "bg-green-100 text-green-800" },
  worse: { text: "Rank worse", className: "bg-orange-50 text-orange-800" },
  better: { text: "Rank better", className: "bg-emerald-50 text-emerald-800" },
  missing: { text: "Not indexed", className: "bg-amber-100 text-amber-900" },
  new: { text: "New pair", className: "bg-slate-100 text-slate-700" },
  dropped: { text: "Pair removed", className: "bg-slate-100 text-slate-700" },
  same: { text: "Same", className: "text-slate-500" },
};

const rank = (r: ComparedPair["base"]) => (r ? rankText(r) : "—");

function columns(agentId: number, k: number, base: number, head: number, documentIds: Map<string, number>): Column<ComparedPair>[] {
  return [
    {
      id: "change",
      header: "Change",
      cell: (r) => (
        <span className={`whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${LABEL[r.change].className}`}>
          {LABEL[r.change].text}
        </span>
      ),
    },
    { id: "query", header: "Query", className: "min-w-[10rem]", cell: (r) => r.query },
    { id: "expected", header: "Expected document", cell: (r) => <FileName name={r.expected} /> },
    { id: "base", header: `Rank in #${base}`, className: "tabular-nums", cell: (r) => rank(r.base) },
    { id: "head", header: `Rank in #${head}`, className: "tabular-nums", cell: (r) => rank(r.head) },
    {
      id: "inspect",
      header: <span className="sr-only">Inspect</span>,
      cell: (r) => (
        <Link
          href={inspectorHref(agentId, r.query, k, documentIds.get(r.expected) ?? null)}
          className="text-blue-700 underline"
          aria-label={`Open “${r.query}” in the inspector`}
        >
          Inspect
        </Link>
      ),
    },
  ];
}

/** Per-pair wins and losses between two runs at k, regressions first. */
export function ComparisonView(props: {
  agentId: number;
  comparison: Comparison;
  base: number;
  head: number;
  swapped: boolean;
  documentIds: Map<string, number>;
  /** How each run ranked: its mode and reranker. */
  ranking?: { base: string; head: string };
}) {
  const { agentId, comparison, base, head, swapped, documentIds, ranking } = props;
  const { counts, k } = comparison;
  const changed = comparison.rows.filter((r) => r.change !== "same");
  return (
    <section aria-labelledby="compare-heading" className="space-y-3">
      <h2 id="compare-heading" className="text-lg font-semibold">
        Run #{base} → run #{head} at k = {k}
      </h2>
      {ranking && (
        <p className="text-sm text-slate-600">
          Run #{base}: {ranking.base}. Run #{head}: {ranking.head}.
        </p>
      )}
      {swapped && (
        <p role="note" className="text-sm text-slate-600">
          Run #{head} is newer than run #{base}, so it is compared as the later run.
        </p>
      )}
      <p className="text-sm">
        <span className="font-medium text-red-800">{plural(counts.regression, "regression")}</span> (hit before, miss now) ·{" "}
        <span className="font-medium text-green-800">{counts.fix} fixed</span> (miss before, hit now) · {counts.worse} ranked worse ·{" "}
        {counts.better} ranked better · {counts.same} unchanged
        {counts.missing > 0 && ` · ${counts.missing} not indexed in one of the runs`}
        {counts.new + counts.dropped > 0 && ` · ${plural(counts.new, "new pair")}, ${plural(counts.dropped, "removed pair")}`}
      </p>
      {changed.length === 0 ? (
        <p className="text-sm text-slate-600">Every pair ranked the same in both runs.</p>
      ) : (
        <DataTable
          caption="Pairs whose result changed, regressions first"
          columns={columns(agentId, k, base, head, documentIds)}
          rows={changed}
          rowKey={(r) => `${r.query}\u0000${r.expected}`}
        />
      )}
    </section>
  );
}
