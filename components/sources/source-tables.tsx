import type { SyncRecord } from "@/lib/db/sources";
import { DataTable, type Column } from "@/components/ui/data-table";
import { clock } from "./sync-sentence";

export interface FailedPage {
  url: string;
  reason: string;
  /** When its document was last fetched; null: it has none (it failed the first time). */
  fetched_at: string | null;
}

const failedColumns: Column<FailedPage>[] = [
  { id: "url", header: "URL", className: "[overflow-wrap:anywhere]", cell: (p) => p.url },
  { id: "reason", header: "Reason", className: "[overflow-wrap:anywhere]", cell: (p) => p.reason },
  {
    id: "document",
    header: "Its document",
    cell: (p) =>
      p.fetched_at ? (
        <>
          kept as fetched <time dateTime={p.fetched_at}>{clock(p.fetched_at)}</time>
        </>
      ) : (
        <span className="text-slate-600">none yet</span>
      ),
  },
];

const SHOWN_FAILURES = 50;

/** Pages the last sync could not read: a page that had a document keeps it, and the next sync tries again. */
export function FailedPages({ rows }: { rows: FailedPage[] }) {
  if (rows.length === 0) return null;
  const more = rows.length - SHOWN_FAILURES;
  return (
    <div className="space-y-2">
      <h4 className="font-medium">Pages that failed</h4>
      <p className="text-sm text-slate-600">A page that fails keeps its document as last fetched; the next sync tries it again.</p>
      <DataTable caption="Pages that failed" columns={failedColumns} rows={rows.slice(0, SHOWN_FAILURES)} rowKey={(p) => p.url} stacked />
      {more > 0 && <p className="text-sm text-slate-600">And {more.toLocaleString("en")} more pages that failed.</p>}
    </div>
  );
}

const TRIGGER: Record<SyncRecord["trigger"], string> = { manual: "by hand", schedule: "scheduled" };
const count = (
  key: "seen" | "added" | "changed" | "removed" | "proposed" | "unchanged" | "failed",
  header: string,
): Column<SyncRecord> => ({
  id: key,
  header,
  className: "tabular-nums",
  cell: (s) => s[key].toLocaleString("en"),
});
const at = (iso: string | null) => (iso ? <time dateTime={iso}>{clock(iso)}</time> : <span className="text-slate-500">—</span>);

const syncColumns: Column<SyncRecord>[] = [
  { id: "id", header: "#", className: "tabular-nums", cell: (s) => s.id },
  { id: "trigger", header: "Trigger", cell: (s) => TRIGGER[s.trigger] },
  { id: "started", header: "Started", className: "whitespace-nowrap", cell: (s) => at(s.started_at) },
  { id: "finished", header: "Finished", className: "whitespace-nowrap", cell: (s) => at(s.finished_at) },
  count("seen", "Seen"),
  count("added", "Added"),
  count("changed", "Changed"),
  count("removed", "Removed"),
  count("proposed", "Proposed"),
  count("unchanged", "Unchanged"),
  count("failed", "Failed"),
  {
    id: "status",
    header: "Status",
    className: "min-w-[8rem]",
    cell: (s) =>
      s.status === "failed" ? (
        <span className="text-red-700">failed{s.error ? `: ${s.error}` : ""}</span>
      ) : s.note ? (
        <span className="text-amber-900">{`${s.status}: ${s.note}`}</span>
      ) : (
        s.status
      ),
  },
];

/** The source's latest syncs, newest first. */
export function SyncHistory({ syncs }: { syncs: SyncRecord[] }) {
  if (syncs.length === 0) return null;
  return (
    <div className="space-y-2">
      <h4 className="font-medium">Syncs</h4>
      <DataTable caption="Syncs" columns={syncColumns} rows={syncs} rowKey={(s) => s.id} stacked />
    </div>
  );
}
