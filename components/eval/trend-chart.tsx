"use client";

import type { EvalRun } from "@/lib/db/eval-runs";
import { LineChart, pct } from "./line-chart";

const decimalTicks = [0, 0.25, 0.5, 0.75, 1].map((value) => ({ value, label: String(value) }));

/** Recall@k and MRR of every finished run, oldest first. */
export function TrendChart({ runs, k, selectedId }: { runs: EvalRun[]; k: number; selectedId?: number }) {
  const recall = runs.map((r) => r.recall_at_k?.[String(k)] ?? null);
  const mrr = runs.map((r) => r.mrr);
  const described = runs.map((r, i) => `run ${r.id}: recall ${recall[i] === null ? "n/a" : pct(recall[i]!)}, MRR ${mrr[i]?.toFixed(3) ?? "n/a"}`).join("; ");
  return (
    <LineChart
      title="Run history trend"
      description={`Recall@${k} and MRR of each finished run, oldest first. ${described}.`}
      xLabels={runs.map((r) => `#${r.id}`)}
      xTitle="evaluation run (oldest to newest)"
      yTicks={decimalTicks}
      highlight={runs.findIndex((r) => r.id === selectedId)}
      series={[
        { name: `Recall@${k} (0–1)`, color: "stroke-blue-700 fill-blue-700", values: recall, format: pct },
        { name: "MRR", color: "stroke-emerald-600 fill-emerald-600", values: mrr, format: (v) => v.toFixed(3), dashed: true },
      ]}
    />
  );
}
