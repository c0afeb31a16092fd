"use client";

import { CURVE_KS } from "@/lib/core/metrics";
import { LineChart, pct, percentTicks } from "./line-chart";

export function RecallCurve({ recall, k }: { recall: Record<string, number | null>; k: number }) {
  const values = CURVE_KS.map((i) => recall[String(i)] ?? null);
  const described = CURVE_KS.map((i, j) => `k=${i}: ${values[j] === null ? "n/a" : pct(values[j]!)}`).join(", ");
  return (
    <LineChart
      title="Recall@k curve"
      description={`Share of pairs whose expected document is in the top k, for k from 1 to 20. ${described}.`}
      xLabels={CURVE_KS.map(String)}
      xTitle="k (results retrieved)"
      yTicks={percentTicks}
      highlight={k - 1}
      highlightLabel={`k = ${k}`}
      series={[{ name: "Recall@k", color: "stroke-blue-700 fill-blue-700", values, format: pct }]}
    />
  );
}
