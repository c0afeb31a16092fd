"use client";

import { useActionState, useState } from "react";
import { useFormStatus } from "react-dom";
import { useQueryClient } from "@tanstack/react-query";
import { resolveRemovalAction, type SourceActionState } from "@/lib/actions/sources";
import { queryKeys } from "@/lib/client/query-keys";
import { DataTable, type Column } from "@/components/ui/data-table";
import { plural } from "@/lib/format/plural";

export interface ProposedRemoval {
  url: string;
  filename: string;
}

const OUTLINE = "rounded border border-slate-300 px-2 py-1 text-xs text-slate-800 hover:bg-slate-100 disabled:opacity-60";
const DANGER = "rounded border border-red-300 px-2 py-1 text-xs text-red-700 hover:bg-red-50 disabled:opacity-60";

/** The row's two buttons: the one clicked says it is working, and neither can be clicked twice meanwhile. */
function RowButtons({ url }: { url: string }) {
  const { pending, data } = useFormStatus();
  const clicked = pending ? data?.get("action") : null;
  return (
    <>
      <button type="submit" name="action" value="remove" disabled={pending} className={DANGER}>
        {clicked === "remove" ? "Removing…" : "Remove"}
        <span className="sr-only"> {url}</span>
      </button>
      <button type="submit" name="action" value="keep" disabled={pending} className={OUTLINE}>
        {clicked === "keep" ? "Keeping…" : "Keep"}
        <span className="sr-only"> {url}</span>
      </button>
    </>
  );
}

type Resolve = (prev: SourceActionState, form: FormData) => Promise<SourceActionState>;

/** Remove or keep one page's document; the outcome is said in the table's status line, which stays when the row goes. */
function RowForm({ url, resolve, statusId }: { url: string; resolve: Resolve; statusId: string }) {
  const [, action] = useActionState<SourceActionState, FormData>(resolve, {});
  return (
    <form action={action} className="flex flex-wrap items-center gap-1.5" aria-describedby={statusId}>
      <input type="hidden" name="url" value={url} />
      <RowButtons url={url} />
    </form>
  );
}

function RemoveAllButton({ count }: { count: number }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      name="action"
      value="remove"
      disabled={pending}
      onClick={(e) => {
        if (!confirm(`Remove the ${plural(count, "document")} of these pages? Searches stop finding them at once.`)) e.preventDefault();
      }}
      className="rounded border border-red-300 px-3 py-1.5 text-sm text-red-700 hover:bg-red-50 disabled:opacity-60"
    >
      {pending ? "Removing…" : "Remove all"}
    </button>
  );
}

/** Pages gone from the source whose documents wait for a person to remove or keep them. */
export function ProposedRemovals(props: { agentId: number; sourceId: number; rows: ProposedRemoval[]; total: number; canEdit: boolean }) {
  const { agentId, sourceId, rows, total, canEdit } = props;
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<SourceActionState>({});
  const resolve: Resolve = async (prev, form) => {
    const next = await resolveRemovalAction(agentId, sourceId, prev, form);
    setStatus(next);
    // Cached inspections of this agent may still list a removed document.
    if (next.ok) void queryClient.invalidateQueries({ queryKey: queryKeys.agent(agentId) });
    return next;
  };
  const [, removeAll] = useActionState<SourceActionState, FormData>(resolve, {});
  const statusId = `removals-${sourceId}-status`;
  const columns: Column<ProposedRemoval>[] = [
    { id: "url", header: "URL", className: "[overflow-wrap:anywhere]", cell: (r) => r.url },
    // A page's name is its host and path: long, and broken anywhere on a phone rather than cut off.
    { id: "document", header: "Document", className: "[overflow-wrap:anywhere]", cell: (r) => r.filename },
    ...(canEdit
      ? [
          {
            id: "actions",
            header: <span className="sr-only">Actions</span>,
            stackLabel: "",
            cell: (r: ProposedRemoval) => <RowForm url={r.url} resolve={resolve} statusId={statusId} />,
          },
        ]
      : []),
  ];
  return (
    <div className="space-y-2">
      {rows.length > 0 && (
        <>
          <h4 className="font-medium">Proposed removals</h4>
          <p className="text-sm text-slate-600">
            {plural(total, "page")} left the source or answered 404/410. Their documents stay searchable until removed; a kept one is
            proposed again by a later sync while its page is still gone.
          </p>
          <DataTable caption="Proposed removals" columns={columns} rows={rows} rowKey={(r) => r.url} stacked />
          {total > rows.length && (
            <p className="text-sm text-slate-600">
              The first {rows.length.toLocaleString("en")} are listed; Remove all acts on all {total.toLocaleString("en")}.
            </p>
          )}
          {canEdit && (
            <form action={removeAll} aria-describedby={statusId}>
              <RemoveAllButton count={total} />
            </form>
          )}
        </>
      )}
      <p id={statusId} role="status" className={`text-sm ${status.ok ? "text-green-800" : "text-red-700"}`}>
        {status.message}
      </p>
    </div>
  );
}
