import type { IndexRecall } from "../retrieval/index-recall";
import { plural } from "../format/plural";

export const percent = (v: number) => `${Math.round(v * 1000) / 10}%`;

/** How searches of the agent are ranked, in words. */
export const servedHow = (r: Pick<IndexRecall, "served_exactly"> & Partial<Pick<IndexRecall, "serving">>) =>
  r.served_exactly ? "ranked exactly" : "Chroma's index, read 200 deep";

/** How an agent past EXACT_MAX_CHUNKS is served now, when that is not how it was measured (a compact table loaded or refused since). */
export const servingNow = (r: Pick<IndexRecall, "served_exactly" | "serving">): string | null =>
  r.serving && (r.served_exactly !== true || !r.serving.startsWith("ranked exactly")) ? `Now: ${r.serving}.` : null;

/** One line for the agent page: what searches get of the nearest chunks, or why it is not known. */
export function indexRecallSentence(r: IndexRecall): string {
  const now = servingNow(r);
  if (r.served_recall === null) return `Index recall@${r.k}: ${r.reason ?? "not measured"}.${now ? ` ${now}` : ""}`;
  const alone = r.index_recall === null ? "" : `; Chroma's index alone ${percent(r.index_recall)}`;
  return (
    `Index recall@${r.k}: searches return ${percent(r.served_recall)} of the nearest ${r.k} chunks (${servedHow(r)})${alone}, ` +
    `over the ${plural(r.queries, "latest distinct search", "latest distinct searches")}.${now ? ` ${now}` : ""}`
  );
}

/** The warning when searches return less of the nearest chunks than INDEX_RECALL_WARN asks; null otherwise. */
export function indexRecallWarning(r: IndexRecall): string | null {
  if (!r.below_threshold || r.served_recall === null) return null;
  const missed = r.nearest_missed
    ? ` For ${plural(r.nearest_missed, "search", "searches")}, the nearest chunk of all was not returned.`
    : "";
  return (
    `Searches miss near chunks: they return ${percent(r.served_recall)} of the nearest ${r.k}, below the ${percent(r.threshold)} the app expects.${missed} ` +
    "Rebuilding the vector index builds its graph afresh."
  );
}
