import type { MapAnswer } from "@/lib/map/view";

export type ReadyMap = Extract<MapAnswer, { status: "ready" }>;

/** Colours of the first categories; past them, categories share "other". */
export const PALETTE = [
  "#2563eb",
  "#16a34a",
  "#d97706",
  "#9333ea",
  "#0891b2",
  "#db2777",
  "#65a30d",
  "#7c3aed",
  "#ea580c",
  "#0d9488",
  "#4f46e5",
  "#ca8a04",
  "#be185d",
  "#059669",
  "#6d28d9",
  "#b45309",
];
const OTHER = "#94a3b8";
const QUESTION = "#0f172a";
const GAP = "#dc2626";

export interface Category {
  label: string;
  color: string;
  count: number;
  /** How it is drawn: a chunk's dot or a question's larger one. */
  kind: "chunk" | "question" | "gap";
}

/** What colours the chunks: their document, or the value of one metadata key of their document. */
export type ColourBy = { by: "document" } | { by: "metadata"; key: string };

export interface Coloured {
  categories: Category[];
  /** Per point (chunks, then questions): its category. */
  category: Int32Array;
  x: Float32Array;
  y: Float32Array;
  /** Per point: its dot's half side in CSS pixels (chunks: by how often they were retrieved). */
  size: Uint8Array;
}

/** The metadata keys the map's documents have, sorted. */
export const metadataKeys = (map: ReadyMap) => [...new Set(map.documents.flatMap((d) => Object.keys(d.metadata ?? {})))].sort();

const flagged = (q: ReadyMap["questions"][number]) => q.gap || q.refused > 0;

const valueText = (v: unknown) => (v === undefined || v === null ? "(none)" : typeof v === "string" ? v : JSON.stringify(v));

/**
 * Points of the map in drawing order (chunks, then questions) with their categories: one per
 * document or metadata value, the most common first, then "other", then questions and gaps.
 */
export function colour(map: ReadyMap, colourBy: ColourBy): Coloured {
  const labelOf = new Map<number, string>(
    map.documents.map((d) => [d.id, colourBy.by === "document" ? d.filename : valueText(d.metadata?.[colourBy.key])]),
  );
  const counts = new Map<string, number>();
  for (const c of map.chunks) {
    const label = labelOf.get(c.document_id) ?? "(none)";
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = ranked.length > PALETTE.length ? ranked.slice(0, PALETTE.length - 1) : ranked;
  const categories: Category[] = shown.map(([label, count], i) => ({ label, color: PALETTE[i], count, kind: "chunk" }));
  const index = new Map(shown.map(([label], i) => [label, i]));
  const rest = ranked.slice(shown.length);
  const other = rest.length
    ? categories.push({ label: `${rest.length} more`, color: OTHER, count: rest.reduce((s, r) => s + r[1], 0), kind: "chunk" }) - 1
    : -1;
  const gaps = map.questions.filter(flagged).length;
  const question = categories.push({ label: "Question", color: QUESTION, count: map.questions.length - gaps, kind: "question" }) - 1;
  const gap = categories.push({ label: "Gap or refused question", color: GAP, count: gaps, kind: "gap" }) - 1;
  const n = map.chunks.length + map.questions.length;
  const out: Coloured = {
    categories,
    category: new Int32Array(n),
    x: new Float32Array(n),
    y: new Float32Array(n),
    size: new Uint8Array(n),
  };
  map.chunks.forEach((c, i) => {
    out.x[i] = c.x;
    out.y[i] = c.y;
    out.category[i] = index.get(labelOf.get(c.document_id) ?? "(none)") ?? other;
    out.size[i] = dotSize(c.retrieved);
  });
  map.questions.forEach((q, j) => {
    const i = map.chunks.length + j;
    out.x[i] = q.x;
    out.y[i] = q.y;
    out.category[i] = flagged(q) ? gap : question;
  });
  return out;
}

/** A chunk's dot by its retrievals: 1 px never retrieved, then larger for 1, 2-3, 4-7 and 8 or more calls. */
export const dotSize = (retrieved: number) => Math.min(5, 1 + Math.ceil(Math.log2(1 + retrieved)));

/** How each category is drawn: chunks as dots, questions as diamonds over them. */
export const markersOf = (categories: Category[]) => categories.map((c) => (c.kind === "chunk" ? ("dot" as const) : ("diamond" as const)));
