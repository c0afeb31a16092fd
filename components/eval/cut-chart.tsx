"use client";

import { useId } from "react";
import type { CutPoint } from "@/lib/evaluation/calibrate";
import { useChartWidth } from "@/components/ui/use-chart-width";
import { ChartLegend, pct, percentTicks } from "./line-chart";

const PAD = { left: 44, right: 24, top: 22, bottom: 40 };
const PLOT_H = 198;
/** Below this width the axis title takes two lines. */
const NARROW = 480;
/** Room at the right for the "no cut" point, which has no distance. */
const NONE_SLOT = 56;
/** Past this many candidates the dots crowd each other; the lines alone read better. */
const MAX_DOTS = 40;

const SERIES = [
  { key: "answered", name: "Answered correctly at k", color: "stroke-blue-700 fill-blue-700", dashed: false },
  { key: "refused", name: "Correctly refused", color: "stroke-emerald-600 fill-emerald-600", dashed: false },
  { key: "balanced", name: "Balanced accuracy", color: "stroke-violet-700 fill-violet-700", dashed: true },
] as const;

export const cutText = (cut: number | null) => (cut === null ? "none" : String(cut));
const figures = (p: CutPoint) => `answered ${pct(p.answered)}, refused ${pct(p.refused)}, balanced ${pct(p.balanced)}`;

interface Props {
  k: number;
  /** Smallest cut first, ending with the "no cut" point. */
  points: CutPoint[];
  recommended: CutPoint;
  current: CutPoint;
  /** The x axis title, in two halves for narrow screens. */
  axis: string[];
}

/** The three shares against the candidate cut (a raw distance or a reranker score), with the recommended and the current cut marked. */
export function CutChart({ k, points, recommended, current, axis }: Props) {
  const id = useId();
  const [figure, W] = useChartWidth<HTMLElement>(640);
  const titleLines = W < NARROW ? axis : [axis.join(" ")];
  const H = PAD.top + PLOT_H + PAD.bottom + (titleLines.length - 1) * 14;
  const finite = points.map((p) => p.cut).filter((c): c is number => c !== null);
  const span = [...finite, ...(current.cut === null ? [] : [current.cut])];
  const lo = span.length ? Math.min(...span) : 0;
  const hi = span.length ? Math.max(...span) : 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = PLOT_H;
  const numericW = plotW - NONE_SLOT;
  const x = (cut: number | null) =>
    cut === null ? PAD.left + plotW : PAD.left + (hi === lo ? numericW / 2 : ((cut - lo) / (hi - lo)) * numericW);
  const y = (v: number) => PAD.top + (1 - v) * plotH;
  const places = hi - lo < 0.05 ? 3 : 2;
  const xTicks = hi === lo ? [lo] : [0, 0.25, 0.5, 0.75, 1].map((t) => lo + t * (hi - lo));
  const markers = [
    {
      cut: recommended.cut,
      label: `recommended ${cutText(recommended.cut)}`,
      className: "stroke-amber-500",
      text: "fill-amber-700",
      at: PAD.top - 6,
    },
    {
      cut: current.cut,
      label: `current ${cutText(current.cut)}`,
      className: "stroke-slate-500",
      text: "fill-slate-600",
      at: PAD.top + plotH - 6,
    },
  ];
  const described =
    `Share of answerable pairs answered correctly at k = ${k}, of unanswerable pairs correctly refused, and their mean, ` +
    `for ${finite.length} candidate cuts from ${lo} to ${hi} and with no cut. ` +
    `Recommended: ${cutText(recommended.cut)} (${figures(recommended)}). Current: ${cutText(current.cut)} (${figures(current)}).`;
  return (
    <figure ref={figure} className="space-y-2">
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        className="block h-auto max-w-full"
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{`No-match cut calibration at k = ${k}`}</title>
        <desc id={`${id}-desc`}>{described}</desc>
        {percentTicks.map((t) => (
          <g key={t.value}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t.value)} y2={y(t.value)} className="stroke-slate-200" strokeWidth={1} />
            <text x={PAD.left - 6} y={y(t.value) + 4} textAnchor="end" className="fill-slate-500 text-[11px]">
              {t.label}
            </text>
          </g>
        ))}
        {xTicks.map((t) => (
          <text key={t} x={x(t)} y={PAD.top + plotH + 16} textAnchor="middle" className="fill-slate-500 text-[11px]">
            {t.toFixed(places)}
          </text>
        ))}
        <text x={x(null)} y={PAD.top + plotH + 16} textAnchor="middle" className="fill-slate-500 text-[11px]">
          no cut
        </text>
        <text x={PAD.left + numericW / 2} y={PAD.top + plotH + 34} textAnchor="middle" className="fill-slate-600 text-[11px]">
          {titleLines.map((line, i) => (
            <tspan key={line} x={PAD.left + numericW / 2} dy={i === 0 ? 0 : 14}>
              {line}
            </tspan>
          ))}
        </text>
        {markers.map((m) => (
          <g key={m.label}>
            <line
              x1={x(m.cut)}
              x2={x(m.cut)}
              y1={PAD.top}
              y2={PAD.top + plotH}
              className={m.className}
              strokeDasharray="4 3"
              strokeWidth={1.5}
            />
            <text
              x={x(m.cut) + (x(m.cut) > W - 140 ? -4 : 4)}
              y={m.at}
              textAnchor={x(m.cut) > W - 140 ? "end" : "start"}
              className={`${m.text} text-[11px]`}
            >
              {m.label}
            </text>
          </g>
        ))}
        {SERIES.map((s) => {
          const path = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.cut).toFixed(1)},${y(p[s.key]).toFixed(1)}`).join(" ");
          return (
            <g key={s.key}>
              <path d={path} className={s.color} style={{ fill: "none" }} strokeWidth={2} strokeDasharray={s.dashed ? "6 4" : undefined} />
              {points.length <= MAX_DOTS &&
                points.map((p) => (
                  <circle key={cutText(p.cut)} cx={x(p.cut)} cy={y(p[s.key])} r={3} className={s.color}>
                    <title>{`${s.name} at cut ${cutText(p.cut)}: ${pct(p[s.key])}`}</title>
                  </circle>
                ))}
            </g>
          );
        })}
      </svg>
      <ChartLegend series={SERIES} />
    </figure>
  );
}
