import type { SourceSummary } from "@/lib/sources/views";
import type { SourcePage, SyncRecord } from "@/lib/db/sources";
import { plural } from "@/lib/format/plural";
import { DeleteSourceButton, SyncNowForm } from "./source-buttons";
import { ProposedRemovals } from "./proposed-removals";
import { SourceSettingsForm } from "./source-settings-form";
import { FailedPages, SyncHistory, type FailedPage } from "./source-tables";
import { SyncRefresher } from "./sync-refresher";
import { syncSentence } from "./sync-sentence";

export type SourceView = SourceSummary & { page_list: SourcePage[]; syncs: SyncRecord[] };

/** How the page names a source: its sitemap, or how many URLs it lists. */
export const sourceName = (s: SourceView) => (s.sitemap ? `Sitemap ${s.sitemap}` : plural(s.urls?.length ?? 0, "page URL"));

const SHOWN_URLS = 20;
const HISTORY = 5;
// More than a person acts on one by one; "Remove all" covers the rest.
const SHOWN_REMOVALS = 100;

/**
 * Pages whose last fetch failed, and the last finished sync's failures of pages it never read
 * (those have no document yet); a note about the source as a whole is said apart.
 */
function failedPages(s: SourceView): FailedPage[] {
  const known = new Set(s.page_list.map((p) => p.url));
  const finished = s.syncs.find((r) => r.status !== "running");
  const unread = (finished?.failures ?? []).filter((f) => !known.has(f.url) && f.url !== s.sitemap);
  return [
    ...s.failing.map((p) => ({ url: p.url, reason: p.error ?? "", fetched_at: p.fetched_at })),
    ...unread.map((f) => ({ ...f, fetched_at: null })),
  ];
}

/** One source: its settings, Sync now, what its last sync did, what needs a person, and its history. */
export function SourceCard({ agentId, source: s, canEdit }: { agentId: number; source: SourceView; canEdit: boolean }) {
  const name = sourceName(s);
  const headingId = `source-${s.id}-heading`;
  const last = s.last_sync;
  const running = last?.status === "running";
  const finished = s.syncs.find((r) => r.status !== "running");
  // Older syncs kept their note among the failures, under the sitemap's URL.
  const note = finished?.note ?? finished?.failures.find((f) => f.url === s.sitemap)?.reason ?? null;
  return (
    <article aria-labelledby={headingId} className="space-y-4 rounded border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <h3 id={headingId} className="font-semibold [overflow-wrap:anywhere]">
            {name}
          </h3>
          <p className="text-sm text-slate-600">
            {plural(s.pages, "page")} · when a page is gone:{" "}
            {s.on_removed === "propose" ? "its removal is proposed" : "its document is removed"} ·{" "}
            {s.interval_minutes === null
              ? "synced only with Sync now"
              : `synced every ${plural(s.interval_minutes, "minute")} and with Sync now`}
            {s.sitemap && (s.cross_host ? " · follows entries on other public hosts" : "")}
            {Object.keys(s.metadata).length > 0 && ` · its pages get ${JSON.stringify(s.metadata)}`}
          </p>
        </div>
        {canEdit && <SyncNowForm agentId={agentId} sourceId={s.id} running={running} />}
      </div>
      {canEdit && (
        <SourceSettingsForm
          agentId={agentId}
          sourceId={s.id}
          name={name}
          onRemoved={s.on_removed}
          intervalMinutes={s.interval_minutes}
          crossHost={s.cross_host}
          metadata={s.metadata}
        />
      )}
      {s.urls && (
        <details className="text-sm">
          <summary className="cursor-pointer text-slate-700">The {plural(s.urls.length, "URL")} it lists</summary>
          <ul className="mt-1 list-inside list-disc font-mono text-xs [overflow-wrap:anywhere]">
            {s.urls.slice(0, SHOWN_URLS).map((u) => (
              <li key={u}>{u}</li>
            ))}
          </ul>
          {s.urls.length > SHOWN_URLS && (
            <p className="text-xs text-slate-600">and {(s.urls.length - SHOWN_URLS).toLocaleString("en")} more.</p>
          )}
        </details>
      )}
      <p role="status" className={`text-sm ${last?.status === "failed" ? "text-red-700" : "text-slate-800"}`}>
        {last ? syncSentence(last) : canEdit ? "Not synced yet: Sync now fetches its pages." : "Not synced yet."}
      </p>
      <SyncRefresher agentId={agentId} running={running} />
      {note && <p className="text-sm text-amber-900">{note}</p>}
      <FailedPages rows={failedPages(s)} />
      <ProposedRemovals
        agentId={agentId}
        sourceId={s.id}
        rows={s.proposed_removals.slice(0, SHOWN_REMOVALS).map((p) => ({ url: p.url, filename: p.filename }))}
        total={s.proposed_removals.length}
        canEdit={canEdit}
      />
      <SyncHistory syncs={s.syncs.slice(0, HISTORY)} />
      {canEdit && <DeleteSourceButton agentId={agentId} sourceId={s.id} name={name} pages={s.pages} />}
    </article>
  );
}
