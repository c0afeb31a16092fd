import { useId } from "react";
import { pct } from "./line-chart";

export interface SweepBar {
  label: string;
  /** Recall at the sweep's k; null while the setting is not done. */
  value: number | null;
  current: boolean;
}

const PLOT_W = 380;
const ROW = 26;
const PAD = { right: 110, top: 8, bottom: 28 };
/** Room for the longest label at 12 px (labels naming another embedding model are long). */
const labelRoom = (bars: SweepBar[]) => Math.max(150, 16 + 7 * Math.max(0, ...bars.map((b) => b.label.length)));
const TICKS = [0, 0.25, 0.5, 0.75, 1];

/** One horizontal bar per chunk setting on a 0..1 scale; the values are also in the description for screen readers. */
export function SweepChart({ k, bars }: { k: number; bars: SweepBar[] }) {
  const id = useId();
  const left = labelRoom(bars);
  const W = left + PLOT_W + PAD.right;
  const H = PAD.top + bars.length * ROW + PAD.bottom;
  const x = (v: number) => left + v * PLOT_W;
  const valueText = (b: SweepBar) => (b.value === null ? "pending" : pct(b.value));
  const described = bars.map((b) => `${b.label}: ${valueText(b)}${b.current ? " (current)" : ""}`).join(", ");
  return (
    <figure>
      <svg viewBox={`0 0 ${W} ${H}`} className="w-full max-w-3xl" role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>{`Recall@${k} by chunk setting`}</title>
        <desc id={`${id}-desc`}>{`Share of pairs whose expected document is in the top ${k}, for each setting. ${described}.`}</desc>
        {TICKS.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={PAD.top} y2={H - PAD.bottom} className="stroke-slate-200" strokeWidth={1} />
            <text x={x(t)} y={H - PAD.bottom + 16} textAnchor="middle" className="fill-slate-500 text-[11px]">
              {`${t * 100}%`}
            </text>
          </g>
        ))}
        {bars.map((b, i) => {
          const y = PAD.top + i * ROW;
          const end = x(b.value ?? 0);
          return (
            <g key={b.label}>
              <text x={left - 8} y={y + ROW / 2 + 4} textAnchor="end" className={`text-[12px] ${b.current ? "fill-amber-800 font-semibold" : "fill-slate-700"}`}>
                {b.label}
              </text>
              {b.value !== null && (
                <rect x={left} y={y + 5} width={Math.max(end - left, 1)} height={ROW - 10} rx={2} className={b.current ? "fill-amber-500" : "fill-blue-700"} />
              )}
              <text x={end + 6} y={y + ROW / 2 + 4} className={`text-[11px] ${b.current ? "fill-amber-800" : "fill-slate-600"}`}>
                {b.current ? `${valueText(b)} · current` : valueText(b)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
