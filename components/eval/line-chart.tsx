// No "use client" here: server components use pct and percentTicks; LineChart itself is drawn
// only by client components (it measures its width).
import { useChartWidth } from "@/components/ui/use-chart-width";

export interface ChartSeries {
  name: string;
  /** A Tailwind stroke/fill colour pair, e.g. "stroke-blue-700 fill-blue-700". */
  color: string;
  values: (number | null)[];
  format: (v: number) => string;
  dashed?: boolean;
}

interface Props {
  title: string;
  description: string;
  xLabels: string[];
  xTitle: string;
  series: ChartSeries[];
  /** Index of the x value to mark, e.g. the chosen k. */
  highlight?: number;
  highlightLabel?: string;
  yTicks: { value: number; label: string }[];
}

const H = 240;
/** Room each x label needs; past that, only every few are written. */
const LABEL_SPACE = 32;
const PAD = { left: 44, right: 16, top: 16, bottom: 40 };

/** A small SVG line chart on a 0..1 scale; the values are also in the description for screen readers. */
export function LineChart({ title, description, xLabels, xTitle, series, highlight, highlightLabel, yTicks }: Props) {
  const [figure, W] = useChartWidth<HTMLElement>(640);
  const n = xLabels.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const y = (v: number) => PAD.top + (1 - v) * plotH;
  const labelEvery = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(plotW / LABEL_SPACE))));
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
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
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {yTicks.map((t) => (
          <g key={t.value}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t.value)} y2={y(t.value)} className="stroke-slate-200" strokeWidth={1} />
            <text x={PAD.left - 6} y={y(t.value) + 4} textAnchor="end" className="fill-slate-500 text-[11px]">
              {t.label}
            </text>
          </g>
        ))}
        {highlight !== undefined && highlight >= 0 && highlight < n && (
          <g>
            <line
              x1={x(highlight)}
              x2={x(highlight)}
              y1={PAD.top}
              y2={PAD.top + plotH}
              className="stroke-amber-500"
              strokeDasharray="4 3"
              strokeWidth={1.5}
            />
            {highlightLabel && (
              <text
                x={x(highlight) > W - 64 ? x(highlight) - 4 : x(highlight) + 4}
                y={PAD.top + plotH - 6}
                textAnchor={x(highlight) > W - 64 ? "end" : "start"}
                className="fill-amber-700 text-[11px]"
              >
                {highlightLabel}
              </text>
            )}
          </g>
        )}
        {xLabels.map((label, i) =>
          // The last label is always written; the one before it only when they do not touch.
          i === n - 1 || (i % labelEvery === 0 && n - 1 - i >= labelEvery) ? (
            <text key={label + i} x={x(i)} y={H - PAD.bottom + 16} textAnchor="middle" className="fill-slate-500 text-[11px]">
              {label}
            </text>
          ) : null,
        )}
        <text x={PAD.left + plotW / 2} y={H - 6} textAnchor="middle" className="fill-slate-600 text-[11px]">
          {xTitle}
        </text>
        {series.map((s) => {
          const points = s.values.map((v, i) => (v === null ? null : ([x(i), y(v), v] as const)));
          const path = points
            .map((p, i) => (p ? `${i === 0 || !points[i - 1] ? "M" : "L"}${p[0].toFixed(1)},${p[1].toFixed(1)}` : ""))
            .join(" ");
          return (
            <g key={s.name}>
              <path
                d={path}
                fill="none"
                className={s.color}
                style={{ fill: "none" }}
                strokeWidth={2}
                strokeDasharray={s.dashed ? "6 4" : undefined}
              />
              {points.map((p, i) =>
                p ? (
                  <circle key={i} cx={p[0]} cy={p[1]} r={i === highlight ? 4.5 : 3} className={s.color}>
                    <title>{`${s.name} at ${xLabels[i]}: ${s.format(p[2])}`}</title>
                  </circle>
                ) : null,
              )}
            </g>
          );
        })}
      </svg>
      {series.length > 1 && <ChartLegend series={series} />}
    </figure>
  );
}

/** The names of a chart's lines, each with a sample of its stroke. */
export function ChartLegend({ series }: { series: readonly { name: string; color: string; dashed?: boolean }[] }) {
  return (
    <figcaption className="flex flex-wrap gap-4 text-xs text-slate-600">
      {series.map((s) => (
        <span key={s.name} className="flex items-center gap-1.5">
          <svg width="20" height="6" aria-hidden>
            <line x1="0" x2="20" y1="3" y2="3" className={s.color} strokeWidth={2} strokeDasharray={s.dashed ? "5 3" : undefined} />
          </svg>
          {s.name}
        </span>
      ))}
    </figcaption>
  );
}

export const percentTicks = [0, 0.25, 0.5, 0.75, 1].map((value) => ({ value, label: `${value * 100}%` }));
export const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;
