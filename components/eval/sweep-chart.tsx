"use client";

import { useId } from "react";
import { useChartWidth } from "@/components/ui/use-chart-width";
import { pct } from "./line-chart";

export interface SweepBar {
  label: string;
  /** Recall at the sweep's k; null while the setting is not done. */
  value: number | null;
  current: boolean;
}

// Wide: the setting's name left of its bar and the value right of it. Narrow: both on a line above the bar.
const WIDE = { row: 26, pad: { left: 150, right: 110, top: 8, bottom: 28 } };
const NARROW = { row: 40, pad: { left: 8, right: 16, top: 8, bottom: 28 } };
const NARROW_BELOW = 480;
/** Room left of the bars for the longest name at 12 px (a row of another embedding model is long). */
const labelRoom = (bars: SweepBar[]) => Math.max(WIDE.pad.left, 16 + 7 * Math.max(0, ...bars.map((b) => b.label.length)));
const TICKS = [0, 0.25, 0.5, 0.75, 1];

/** One horizontal bar per chunk setting on a 0..1 scale; the values are also in the description for screen readers. */
export function SweepChart({ k, bars }: { k: number; bars: SweepBar[] }) {
  const id = useId();
  const [figure, W] = useChartWidth<HTMLElement>(640);
  const left = labelRoom(bars);
  // Names too long to leave the bars 200 px go above them, as on a phone.
  const narrow = W < NARROW_BELOW || W - left - WIDE.pad.right < 200;
  const ROW = narrow ? NARROW.row : WIDE.row;
  const PAD = narrow ? NARROW.pad : { ...WIDE.pad, left };
  const plotW = W - PAD.left - PAD.right;
  const H = PAD.top + bars.length * ROW + PAD.bottom;
  const x = (v: number) => PAD.left + v * plotW;
  const valueText = (b: SweepBar) => (b.value === null ? "pending" : pct(b.value));
  const described = bars.map((b) => `${b.label}: ${valueText(b)}${b.current ? " (current)" : ""}`).join(", ");
  return (
    <figure ref={figure}>
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        className="block h-auto max-w-full"
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{`Recall@${k} by chunk setting`}</title>
        <desc id={`${id}-desc`}>{`Share of pairs whose expected document is in the top ${k}, for each setting. ${described}.`}</desc>
        {TICKS.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={PAD.top} y2={H - PAD.bottom} className="stroke-slate-200" strokeWidth={1} />
            <text
              x={x(t)}
              y={H - PAD.bottom + 16}
              textAnchor={narrow && t === 0 ? "start" : narrow && t === 1 ? "end" : "middle"}
              className="fill-slate-500 text-[11px]"
            >
              {`${t * 100}%`}
            </text>
          </g>
        ))}
        {bars.map((b, i) => {
          const y = PAD.top + i * ROW;
          const end = x(b.value ?? 0);
          const value = b.current ? `${valueText(b)} · current` : valueText(b);
          const barY = narrow ? y + 20 : y + 5;
          return (
            <g key={b.label}>
              <text
                x={narrow ? PAD.left : PAD.left - 8}
                y={narrow ? y + 14 : y + ROW / 2 + 4}
                textAnchor={narrow ? "start" : "end"}
                className={`text-[12px] ${b.current ? "fill-amber-800 font-semibold" : "fill-slate-700"}`}
              >
                {b.label}
                {narrow && (
                  <tspan className={`text-[11px] font-normal ${b.current ? "fill-amber-800" : "fill-slate-600"}`}>{`  ${value}`}</tspan>
                )}
              </text>
              {b.value !== null && (
                <rect
                  x={PAD.left}
                  y={barY}
                  width={Math.max(end - PAD.left, 1)}
                  height={16}
                  rx={2}
                  className={b.current ? "fill-amber-500" : "fill-blue-700"}
                />
              )}
              {!narrow && (
                <text x={end + 6} y={y + ROW / 2 + 4} className={`text-[11px] ${b.current ? "fill-amber-800" : "fill-slate-600"}`}>
                  {value}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
