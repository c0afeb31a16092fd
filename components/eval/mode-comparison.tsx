"use client";

import Link from "next/link";
import { useActionState } from "react";
import { useFormStatus } from "react-dom";
import { setRetrievalModeAction, type RetrievalModeState } from "@/lib/actions/agents-mode";
import type { Disagreement, ModeComparison, ModeRow } from "@/lib/evaluation/mode-comparison";
import type { RetrievalMode } from "@/lib/validations/agent";
import { DataTable, type Column } from "@/components/ui/data-table";
import { FileName } from "@/components/ui/file-name";
import { inspectorHref } from "./inspector-link";
import { LineChart, pct, percentTicks } from "./line-chart";
import { OutcomeBadge, outcomeOf, rankText } from "./outcome-badge";

const COLOR: Record<RetrievalMode, { color: string; dashed?: boolean }> = {
  vector: { color: "stroke-blue-700 fill-blue-700" },
  keyword: { color: "stroke-violet-700 fill-violet-700", dashed: true },
  hybrid: { color: "stroke-emerald-600 fill-emerald-600" },
};

function UseModeButton({ mode }: { mode: RetrievalMode }) {
  const { pending, data } = useFormStatus();
  return (
    <button
      type="submit"
      name="mode"
      value={mode}
      disabled={pending}
      className="rounded border border-blue-700 px-2 py-1 text-xs font-medium text-blue-800 hover:bg-blue-50 disabled:opacity-60"
    >
      {pending && data?.get("mode") === mode ? "Switching…" : "Use this mode"}
    </button>
  );
}

function figureCell(value: number | null, best: boolean, format: (v: number) => string) {
  return <span className={best ? "font-bold" : undefined}>{value === null ? "n/a" : format(value)}</span>;
}

function modeColumns(c: ModeComparison, canEdit: boolean, rerankers: Record<number, string>): Column<ModeRow>[] {
  const columns: Column<ModeRow>[] = [
    {
      id: "mode",
      header: "Mode",
      className: "whitespace-nowrap font-medium",
      cell: (r) => (
        <>
          {r.mode}{" "}
          <span className="text-xs font-normal text-slate-600">
            (run #{r.runId}
            {rerankers[r.runId] && rerankers[r.runId] !== "none" ? `, reranked by ${rerankers[r.runId]}` : ""})
          </span>
          {r.current && <span className="ml-2 rounded bg-blue-100 px-2 py-0.5 text-xs font-medium text-blue-800">agent&apos;s mode</span>}
        </>
      ),
    },
    ...c.ks.map((k): Column<ModeRow> => ({
      id: `recall-${k}`,
      header: k === c.k ? `Recall@${k} (shown)` : `Recall@${k}`,
      className: "tabular-nums",
      cell: (r) => figureCell(r.recall[String(k)], c.best[String(k)].includes(r.mode), pct),
    })),
    {
      id: "mrr",
      header: "MRR",
      className: "tabular-nums",
      cell: (r) => figureCell(r.mrr, c.best.mrr.includes(r.mode), (v) => v.toFixed(3)),
    },
  ];
  if (!canEdit) return columns;
  return [
    ...columns,
    {
      id: "use",
      header: <span className="sr-only">Agent&apos;s mode</span>,
      cell: (r) => (r.current ? <span className="text-xs text-slate-600">In use</span> : <UseModeButton mode={r.mode} />),
    },
  ];
}

function disagreementColumns(agentId: number, c: ModeComparison, documentIds: Record<string, number>): Column<Disagreement>[] {
  return [
    { id: "query", header: "Query", className: "min-w-[10rem]", cell: (d) => d.query },
    { id: "expected", header: "Expected document", cell: (d) => <FileName name={d.expected} /> },
    ...c.rows.map(({ mode }): Column<Disagreement> => ({
      id: mode,
      header: `Rank by ${mode}`,
      className: "whitespace-nowrap tabular-nums",
      cell: (d) => {
        const o = d.outcomes[mode];
        if (!o) return "—";
        const rank = { rank: o.rank, missing: false, beyondCut: o.beyondCut };
        return (
          <>
            {rankText(rank)} <OutcomeBadge outcome={outcomeOf(rank, c.k)} />
          </>
        );
      },
    })),
    {
      id: "inspect",
      header: <span className="sr-only">Inspect</span>,
      cell: (d) => (
        <Link
          // The inspector ranks in the mode named in the URL, here the one that missed.
          href={inspectorHref(agentId, d.query, c.k, documentIds[d.expected] ?? null, d.inspectMode)}
          className="text-blue-700 underline"
          aria-label={`Open “${d.query}” in the inspector ranked by ${d.inspectMode}`}
        >
          Inspect
        </Link>
      ),
    },
  ];
}

interface Props {
  agentId: number;
  /** null: fewer than two modes have run on the agent's current pairs. */
  comparison: ModeComparison | null;
  canEdit: boolean;
  documentIds: Record<string, number>;
  /** Each compared run's reranker by run id ("none": the mode's own order). */
  rerankers?: Record<number, string>;
}

/** Each mode's latest run over the current pairs side by side, the pairs they disagree on, and a way to switch the agent's mode. */
export function ModeComparisonView({ agentId, comparison: c, canEdit, documentIds, rerankers = {} }: Props) {
  const [state, action] = useActionState<RetrievalModeState, FormData>(setRetrievalModeAction.bind(null, agentId), {});
  return (
    <section aria-labelledby="modes-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="modes-heading" className="font-semibold">
        Retrieval modes
      </h2>
      {!c ? (
        <p className="text-sm text-slate-600">Compare modes to see which ranks your pairs best.</p>
      ) : (
        <>
          <p className="max-w-3xl text-sm text-slate-600">
            The latest run of each mode over the agent&apos;s current pairs. Vector ranks by meaning, keyword by the query&apos;s words
            (bm25), hybrid fuses both lists. The best figure of each column is in bold.
          </p>
          <form action={action} aria-describedby="mode-status" className="max-w-4xl">
            <DataTable
              caption="Recall and MRR per retrieval mode"
              columns={modeColumns(c, canEdit, rerankers)}
              rows={c.rows}
              rowKey={(r) => r.mode}
              rowClassName={(r) => (r.current ? "bg-blue-50" : "")}
            />
          </form>
          <p id="mode-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
            {state.message}
          </p>
          <LineChart
            title="Recall@k per retrieval mode"
            description={`Share of pairs whose expected document is in the top k, for k from 1 to 20, in each mode. ${c.rows
              .map((r) => `${r.mode}: ${r.curve.map((v, i) => `k=${i + 1} ${v === null ? "n/a" : pct(v)}`).join(", ")}`)
              .join("; ")}.`}
            xLabels={c.rows[0].curve.map((_, i) => String(i + 1))}
            xTitle="k (results retrieved)"
            yTicks={percentTicks}
            highlight={c.k - 1}
            highlightLabel={`k = ${c.k}`}
            series={c.rows.map((r) => ({ name: r.mode, ...COLOR[r.mode], values: r.curve, format: pct }))}
          />
          <h3 className="font-medium">Pairs the modes disagree on at k = {c.k}</h3>
          {c.disagreements.length === 0 ? (
            <p className="text-sm text-slate-600">Every pair is a hit in all modes or a miss in all modes at k = {c.k}.</p>
          ) : (
            <DataTable
              caption={`Pairs hit in one mode and missed in another at k = ${c.k}, the agent's mode's misses first`}
              columns={disagreementColumns(agentId, c, documentIds)}
              rows={c.disagreements}
              rowKey={(d) => `${d.pairId}\u0000${d.query}`}
            />
          )}
        </>
      )}
    </section>
  );
}
