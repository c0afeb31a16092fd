import Link from "next/link";
import type { EvalRun } from "@/lib/db/eval-runs";
import { DataTable, type Column } from "@/components/ui/data-table";
import { plural } from "@/lib/format/plural";
import { pct } from "./line-chart";
import { chunkSettingsText, queryWeightingText, rankingText, when } from "./run-settings";
import { TrendChart } from "./trend-chart";

function Status({ run }: { run: EvalRun }) {
  if (run.status === "done") return <span className="text-green-800">done</span>;
  if (run.status === "running")
    return (
      <span>
        running ({run.done_pairs}/{run.n_pairs})
      </span>
    );
  return <span className="text-red-700">failed: {run.error}</span>;
}

function columns(agentId: number, k: number, selectedId?: number): Column<EvalRun>[] {
  const recall = (r: EvalRun) => r.recall_at_k?.[String(k)] ?? null;
  return [
    {
      id: "run",
      header: "Run",
      cell: (r) =>
        r.status === "done" ? (
          <Link
            href={`/agents/${agentId}/eval?run=${r.id}&k=${k}`}
            className="text-blue-700 underline"
            aria-current={r.id === selectedId ? "true" : undefined}
          >
            #{r.id}
          </Link>
        ) : (
          `#${r.id}`
        ),
    },
    { id: "when", header: "When", className: "whitespace-nowrap", cell: (r) => when(r.created_at) },
    {
      id: "recall",
      header: `Recall@${k}`,
      className: "tabular-nums",
      cell: (r) => {
        const v = recall(r);
        return v === null ? "—" : pct(v);
      },
    },
    { id: "mrr", header: "MRR", className: "tabular-nums", cell: (r) => r.mrr?.toFixed(3) ?? "—" },
    {
      id: "pairs",
      header: "Pairs",
      cell: (r) => (
        <>
          {r.n_pairs}
          {r.n_missing > 0 && <span className="text-amber-800"> ({r.n_missing} not indexed)</span>}
          {/* Recall on generated questions and on real ones are different figures: say which pairs a run scored. */}
          <span className="block text-xs text-slate-600">{r.pair_source ? `${r.pair_source} only` : "all sources"}</span>
        </>
      ),
    },
    { id: "k", header: "Run at k", cell: (r) => r.k },
    {
      id: "index",
      header: "Index",
      className: "min-w-[14rem] text-xs text-slate-600",
      cell: (r) =>
        `${rankingText(r)} · ${r.embedding_model}${queryWeightingText(r) ? ` · ${queryWeightingText(r)}` : ""} · ${plural(r.document_count, "doc")}, ${plural(r.chunk_count, "chunk")} · ${chunkSettingsText(r)}`,
    },
    { id: "status", header: "Status", cell: (r) => <Status run={r} /> },
  ];
}

/** Every run with the settings it ran with; the finished ones as a trend and as choices to compare. */
export function RunHistory({
  agentId,
  runs,
  k,
  selectedId,
  base,
  head,
}: {
  agentId: number;
  runs: EvalRun[];
  k: number;
  selectedId?: number;
  base?: number;
  head?: number;
}) {
  const finished = runs.filter((r) => r.status === "done");
  return (
    <section aria-labelledby="history-heading" className="space-y-4">
      <h2 id="history-heading" className="text-lg font-semibold">
        Run history
      </h2>
      {finished.length > 1 ? (
        <TrendChart runs={finished} k={k} selectedId={selectedId} />
      ) : (
        <p className="text-sm text-slate-600">The trend appears once there are two finished runs.</p>
      )}
      <DataTable
        caption="Evaluation runs, newest first"
        columns={columns(agentId, k, selectedId)}
        rows={[...runs].reverse()}
        rowKey={(r) => r.id}
        rowClassName={(r) => (r.id === selectedId ? "bg-blue-50" : "")}
      />
      {finished.length > 1 && (
        <form
          method="get"
          className="flex flex-wrap items-end gap-4 rounded border border-slate-200 bg-white p-4"
          aria-label="Compare two runs"
        >
          {selectedId !== undefined && <input type="hidden" name="run" value={selectedId} />}
          <input type="hidden" name="k" value={k} />
          {[
            { name: "base", label: "Earlier run", value: base },
            { name: "head", label: "Later run", value: head },
          ].map((f) => (
            <div key={f.name} className="flex flex-col gap-1">
              <label htmlFor={`compare-${f.name}`} className="text-sm font-medium">
                {f.label}
              </label>
              <select
                id={`compare-${f.name}`}
                name={f.name}
                defaultValue={f.value}
                className="rounded border border-slate-300 px-2 py-1.5 text-sm"
              >
                {finished.map((r) => (
                  <option key={r.id} value={r.id}>
                    #{r.id} · {when(r.created_at)}
                  </option>
                ))}
              </select>
            </div>
          ))}
          <button type="submit" className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800">
            Compare
          </button>
        </form>
      )}
    </section>
  );
}
