import type { Chunk } from "@/lib/core/chunking";

interface Segment {
  start: number;
  end: number;
  chunks: number[];
}

/** Splits the text wherever a chunk starts or ends, noting which chunks hold each piece. */
function segments(length: number, chunks: Pick<Chunk, "start" | "end">[]): Segment[] {
  const cuts = new Set<number>([0, length]);
  for (const c of chunks) {
    cuts.add(c.start);
    cuts.add(c.end);
  }
  const points = [...cuts].filter((p) => p <= length).sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [start, end] = [points[i], points[i + 1]];
    out.push({ start, end, chunks: chunks.flatMap((c, idx) => (c.start <= start && end <= c.end ? [idx] : [])) });
  }
  return out;
}

/** The text with every chunk boundary drawn and the overlaps between chunks marked. */
export function ChunkedText({ text, chunks, label }: { text: string; chunks: Pick<Chunk, "start" | "end">[]; label: string }) {
  const starts = new Map(chunks.map((c, i) => [c.start, i]));
  return (
    <figure className="space-y-2">
      <figcaption className="flex flex-wrap gap-4 text-xs text-slate-600">
        <span>{label}</span>
        <span className="inline-flex items-center gap-1">
          <span className="inline-block h-3 w-3 rounded-sm bg-sky-100 ring-1 ring-sky-300" /> even chunks
        </span>
        <span className="inline-flex items-center gap-1">
          <span className="inline-block h-3 w-3 rounded-sm bg-emerald-100 ring-1 ring-emerald-300" /> odd chunks
        </span>
        <span className="inline-flex items-center gap-1">
          <span className="inline-block h-3 w-3 rounded-sm bg-amber-300" /> overlap (in two chunks)
        </span>
      </figcaption>
      <div className="max-h-[32rem] overflow-auto rounded border border-slate-200 bg-white p-3 font-mono text-xs leading-6 whitespace-pre-wrap">
        {segments(text.length, chunks).map((s) => {
          const startsHere = starts.get(s.start);
          const cls =
            s.chunks.length > 1 ? "bg-amber-300" : s.chunks.length === 1 ? (s.chunks[0] % 2 ? "bg-emerald-100" : "bg-sky-100") : "";
          return (
            <span key={s.start}>
              {startsHere !== undefined && (
                <span
                  className="mx-0.5 rounded bg-slate-700 px-1 text-[10px] text-white select-none"
                  aria-label={`chunk ${startsHere} starts`}
                >
                  {startsHere}
                </span>
              )}
              <span className={cls}>{text.slice(s.start, s.end)}</span>
            </span>
          );
        })}
      </div>
    </figure>
  );
}
