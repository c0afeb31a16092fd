"use client";

import { useId } from "react";
import { beyondCut } from "@/lib/retrieval/cut";
import { useChartWidth } from "@/components/ui/use-chart-width";

const BLUE = "#1d4ed8";
const GREY = "#94a3b8";
const AMBER = "#d97706";
const CUT = "#7c3aed";
const MISS = "#db2777";

/** A chunk the vector index did not return, drawn at `slot`: the result it is nearer than, or its exact rank past a short list. */
export interface ChartMiss {
  distance: number;
  slot: number;
  /** Its words for the marker's title. */
  label: string;
  /** A chunk of the expected document. */
  expected: boolean;
}

/**
 * Distances of the first results as bars, with the top_k cut drawn, so the gap between hits and misses shows;
 * with a no-match cut, its distance is a dashed line and the bars past it are hatched; chunks the
 * vector index missed are diamonds at their distance on the result they are nearer than.
 */
export function DistanceChart(props: {
  distances: number[];
  topK: number;
  expectedRank: number | null;
  space: string;
  cut?: number | null;
  misses?: ChartMiss[];
}) {
  const { distances, topK, expectedRank, space } = props;
  const misses = props.misses ?? [];
  const cut = props.cut ?? null;
  const hatch = useId();
  const [figure, W] = useChartWidth<HTMLElement>(640);
  if (distances.length === 0) return null;
  const H = 160;
  const pad = { l: 44, r: 8, t: 8, b: 24 };
  // The cut widens the scale when it lies outside the distances, so its line is always drawn.
  const max = Math.max(...distances, cut ?? 0, 0.0001);
  const min = Math.min(...distances, ...misses.map((m) => m.distance), cut ?? Infinity);
  const lo = Math.max(0, min - (max - min) * 0.15);
  const slots = Math.max(distances.length, ...misses.map((m) => m.slot));
  const bw = (W - pad.l - pad.r) / slots;
  const y = (d: number) => pad.t + (H - pad.t - pad.b) * (1 - (d - lo) / (max - lo || 1));
  const cutX = pad.l + bw * Math.min(topK, distances.length);
  const ticks = [lo, (lo + max) / 2, max];
  const colour = (i: number) => (expectedRank === i + 1 ? AMBER : i < topK ? BLUE : GREY);
  const dropped = distances.filter((d) => beyondCut(d, cut)).length;
  const cutLabel = `no-match cut ${cut}`;
  // Near the top the label goes under the line, so it is not clipped.
  const cutLabelY = cut === null ? 0 : y(cut) < pad.t + 12 ? y(cut) + 11 : y(cut) - 3;
  return (
    <figure ref={figure} className="space-y-1">
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        className="block h-auto max-w-full"
        role="img"
        aria-label={`Distances of the first ${distances.length} results; the top_k cut is after result ${topK}${
          cut === null ? "" : `; the ${cutLabel} drops ${dropped} of them`
        }${misses.length === 0 ? "" : `; ${misses.length} nearer ${misses.length === 1 ? "chunk" : "chunks"} the vector index did not return ${misses.length === 1 ? "is" : "are"} marked`}`}
      >
        <defs>
          {[BLUE, GREY, AMBER].map((c) => (
            <pattern key={c} id={`${hatch}-${c.slice(1)}`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" fill={c} fillOpacity="0.15" />
              <line x1="0" y1="0" x2="0" y2="6" stroke={c} strokeWidth="2.5" strokeOpacity="0.6" />
            </pattern>
          ))}
        </defs>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.l} x2={W - pad.r} y1={y(t)} y2={y(t)} stroke="#e2e8f0" />
            <text x={pad.l - 4} y={y(t) + 4} fontSize="11" textAnchor="end" fill="#64748b">
              {t.toFixed(3)}
            </text>
          </g>
        ))}
        {distances.map((d, i) => {
          const past = beyondCut(d, cut);
          return (
            <rect
              key={i}
              x={pad.l + i * bw + 1}
              y={y(d)}
              width={Math.max(bw - 2, 1)}
              height={H - pad.b - y(d)}
              fill={past ? `url(#${hatch}-${colour(i).slice(1)})` : colour(i)}
              stroke={past ? colour(i) : undefined}
              strokeOpacity={0.6}
            >
              <title>{`rank ${i + 1}: ${d.toFixed(4)}${past ? " (dropped by the no-match cut)" : ""}`}</title>
            </rect>
          );
        })}
        {misses.map((m) => {
          const cx = pad.l + (m.slot - 0.5) * bw;
          const cy = y(m.distance);
          return (
            <polygon
              key={m.label}
              data-testid="index-miss-marker"
              points={`${cx},${cy - 6} ${cx + 6},${cy} ${cx},${cy + 6} ${cx - 6},${cy}`}
              fill={m.expected ? AMBER : MISS}
              stroke={MISS}
              strokeWidth={m.expected ? 2 : 1}
            >
              <title>{m.label}</title>
            </polygon>
          );
        })}
        <line x1={cutX} x2={cutX} y1={pad.t} y2={H - pad.b} stroke="#dc2626" strokeDasharray="4 3" />
        {/* Near the right edge the label goes left of the line, so it stays inside the chart. */}
        <text
          x={cutX > W - 72 ? cutX - 3 : cutX + 3}
          y={pad.t + 10}
          fontSize="11"
          textAnchor={cutX > W - 72 ? "end" : "start"}
          fill="#dc2626"
          stroke="white"
          strokeWidth="3"
          paintOrder="stroke"
        >
          top_k = {topK}
        </text>
        {cut !== null && (
          <g>
            <line x1={pad.l} x2={W - pad.r} y1={y(cut)} y2={y(cut)} stroke={CUT} strokeWidth="1.5" strokeDasharray="6 3" />
            <text
              x={W - pad.r - 2}
              y={cutLabelY}
              fontSize="11"
              textAnchor="end"
              fill={CUT}
              stroke="white"
              strokeWidth="3"
              paintOrder="stroke"
            >
              {cutLabel}
            </text>
          </g>
        )}
        <text x={pad.l} y={H - 6} fontSize="11" fill="#64748b">
          rank 1
        </text>
        <text x={W - pad.r} y={H - 6} fontSize="11" textAnchor="end" fill="#64748b">
          rank {slots}
        </text>
      </svg>
      <figcaption className="text-xs text-slate-600">
        Distances of the first {distances.length} results ({space}). Blue: retrieved at this top_k; grey: not retrieved
        {expectedRank ? "; amber: the expected document's best chunk" : ""}
        {cut !== null ? `; hatched: past the ${cutLabel} (dashed line), which the agent's search drops` : ""}
        {misses.length > 0
          ? "; pink diamonds: nearer chunks the vector index did not return, drawn on the result they are nearer than (amber inside: the expected document's)"
          : ""}
        .
      </figcaption>
    </figure>
  );
}
