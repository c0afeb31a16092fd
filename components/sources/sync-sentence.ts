import type { SyncRecord } from "@/lib/db/sources";
import { plural } from "@/lib/format/plural";

/** A time of today as 12:03:04; of another day with its date. */
export function clock(iso: string): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString("en-GB");
  return at.toDateString() === new Date().toDateString() ? time : `${at.toLocaleDateString("en-GB", { dateStyle: "medium" })}, ${time}`;
}

/** What a sync did, in the order a reader checks it. */
export const countsText = (s: SyncRecord) =>
  `${plural(s.seen, "page")} seen, ${s.added} added, ${s.changed} changed, ${s.removed} removed, ${plural(s.proposed, "removal")} proposed, ${s.unchanged} unchanged, ${s.failed} failed`;

/** The last sync in one sentence: running with its progress, finished with its counts, or failed with its error. */
export function syncSentence(s: SyncRecord): string {
  if (s.status === "running") return `Sync #${s.id} is running: ${plural(s.seen, "page")} seen so far.`;
  const at = clock(s.finished_at ?? s.started_at);
  if (s.status === "failed") return `Sync #${s.id} failed at ${at}: ${s.error ?? "no reason was recorded."}`;
  return `Sync #${s.id} finished at ${at}: ${countsText(s)}.`;
}
