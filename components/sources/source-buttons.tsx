"use client";

import { useActionState, useState } from "react";
import { useFormStatus } from "react-dom";
import { deleteSourceAction, syncSourceAction, type SourceActionState } from "@/lib/actions/sources";
import { ConfirmButton } from "@/components/ui/confirm-button";

function SyncButton({ running }: { running: boolean }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      disabled={pending || running}
      className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60"
    >
      {pending ? "Starting…" : running ? "Syncing…" : "Sync now"}
    </button>
  );
}

/** "Sync now": starts the sync and answers at once; the section shows its progress. */
export function SyncNowForm({ agentId, sourceId, running }: { agentId: number; sourceId: number; running: boolean }) {
  const [state, action] = useActionState<SourceActionState, FormData>(syncSourceAction.bind(null, agentId, sourceId), {});
  const statusId = `sync-${sourceId}-status`;
  return (
    <form action={action} className="flex flex-wrap items-center gap-3" aria-describedby={statusId}>
      <SyncButton running={running} />
      {/* Success needs no words here: the sync's own sentence says it runs. */}
      <p id={statusId} aria-live="polite" className="text-sm text-red-700">
        {state.ok ? "" : state.message}
      </p>
    </form>
  );
}

const KEPT = (pages: number) =>
  pages === 0
    ? "It has made no document yet."
    : `The ${pages === 1 ? "document" : `${pages} documents`} it made stay, as if uploaded; delete them in the table below if they should go too.`;

/** Deletes the source; what it fetched stays as documents of the agent. */
export function DeleteSourceButton({ agentId, sourceId, name, pages }: { agentId: number; sourceId: number; name: string; pages: number }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="flex flex-wrap items-center gap-3">
      <ConfirmButton
        question={`Delete the source “${name}”? It stops syncing and its sync history goes. ${KEPT(pages)}`}
        pendingText="Deleting…"
        label={`Delete source ${name}`}
        onConfirm={async () => {
          const result = await deleteSourceAction(agentId, sourceId);
          setError(result.ok ? null : (result.message ?? "The source was not deleted."));
        }}
      >
        Delete source
      </ConfirmButton>
      <p aria-live="polite" className="text-sm text-red-700">
        {error}
      </p>
    </div>
  );
}
