"use client";

import type { EvalRun } from "@/lib/db/eval-runs";
import { LineChart, pct, percentTicks } from "./line-chart";

/** Recall@k and MRR of every finished run, oldest first. */
export function TrendChart({ runs, k, selectedId }: { runs: EvalRun[]; k: number; selectedId?: number }) {
  const recall = runs.map((r) => r.recall_at_k?.[String(k)] ?? null);
  const mrr = runs.map((r) => r.mrr);
  const described = runs
    .map((r, i) => `run ${r.id}: recall ${recall[i] === null ? "n/a" : pct(recall[i]!)}, MRR ${mrr[i]?.toFixed(3) ?? "n/a"}`)
    .join("; ");
  return (
    <LineChart
      title="Run history trend"
      description={`Recall@${k} and MRR of each finished run, oldest first. ${described}.`}
      xLabels={runs.map((r) => `#${r.id}`)}
      xTitle="evaluation run (oldest to newest)"
      yTicks={percentTicks}
      highlight={runs.findIndex((r) => r.id === selectedId)}
      series={[
        { name: `Recall@${k}`, color: "stroke-blue-700 fill-blue-700", values: recall, format: pct },
        { name: "MRR (1 = 100%)", color: "stroke-emerald-600 fill-emerald-600", values: mrr, format: (v) => v.toFixed(3), dashed: true },
      ]}
    />
  );
}
