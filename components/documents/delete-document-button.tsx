"use client";

import { useTransition } from "react";
import { deleteDocumentAction } from "@/lib/actions/documents";

export function DeleteDocumentButton(props: { agentId: number; documentId: number; filename: string; chunks: number; after?: () => void }) {
  const [pending, start] = useTransition();
  return (
    <button
      type="button"
      disabled={pending}
      onClick={() => {
        if (!confirm(`Delete "${props.filename}" and its ${props.chunks} chunks? Searches stop finding it at once.`)) return;
        start(async () => {
          await deleteDocumentAction(props.agentId, props.documentId);
          props.after?.();
        });
      }}
      className="rounded border border-red-300 px-2 py-1 text-xs text-red-700 hover:bg-red-50 disabled:opacity-50"
    >
      {pending ? "Deleting…" : <>Delete<span className="sr-only"> {props.filename}</span></>}
    </button>
  );
}
