/** Distances of the first results as bars, with the top_k cut drawn, so the gap between hits and misses shows. */
export function DistanceChart({ distances, topK, expectedRank, space }: { distances: number[]; topK: number; expectedRank: number | null; space: string }) {
  if (distances.length === 0) return null;
  const W = 640;
  const H = 160;
  const pad = { l: 44, r: 8, t: 8, b: 24 };
  const max = Math.max(...distances, 0.0001);
  const min = Math.min(...distances);
  const lo = Math.max(0, min - (max - min) * 0.15);
  const bw = (W - pad.l - pad.r) / distances.length;
  const y = (d: number) => pad.t + (H - pad.t - pad.b) * (1 - (d - lo) / (max - lo || 1));
  const cutX = pad.l + bw * Math.min(topK, distances.length);
  const ticks = [lo, (lo + max) / 2, max];
  return (
    <figure className="space-y-1">
      <svg viewBox={`0 0 ${W} ${H}`} className="w-full max-w-3xl" role="img" aria-label={`Distances of the first ${distances.length} results; the top_k cut is after result ${topK}`}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.l} x2={W - pad.r} y1={y(t)} y2={y(t)} stroke="#e2e8f0" />
            <text x={pad.l - 4} y={y(t) + 4} fontSize="10" textAnchor="end" fill="#64748b">
              {t.toFixed(3)}
            </text>
          </g>
        ))}
        {distances.map((d, i) => (
          <rect
            key={i}
            x={pad.l + i * bw + 1}
            y={y(d)}
            width={Math.max(bw - 2, 1)}
            height={H - pad.b - y(d)}
            fill={expectedRank === i + 1 ? "#d97706" : i < topK ? "#1d4ed8" : "#94a3b8"}
          >
            <title>{`rank ${i + 1}: ${d.toFixed(4)}`}</title>
          </rect>
        ))}
        <line x1={cutX} x2={cutX} y1={pad.t} y2={H - pad.b} stroke="#dc2626" strokeDasharray="4 3" />
        <text x={cutX + 3} y={pad.t + 10} fontSize="10" fill="#dc2626">
          top_k = {topK}
        </text>
        <text x={pad.l} y={H - 6} fontSize="10" fill="#64748b">
          rank 1
        </text>
        <text x={W - pad.r} y={H - 6} fontSize="10" textAnchor="end" fill="#64748b">
          rank {distances.length}
        </text>
      </svg>
      <figcaption className="text-xs text-slate-600">
        Distances of the first {distances.length} results ({space}). Blue: retrieved at this top_k; grey: not retrieved
        {expectedRank ? "; amber: the expected document's best chunk" : ""}.
      </figcaption>
    </figure>
  );
}
