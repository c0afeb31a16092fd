"use client";

import { useQueryClient } from "@tanstack/react-query";
import { deleteDocumentAction } from "@/lib/actions/documents";
import { queryKeys } from "@/lib/client/query-keys";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { plural } from "@/lib/format/plural";

export function DeleteDocumentButton(props: { agentId: number; documentId: number; filename: string; chunks: number }) {
  const queryClient = useQueryClient();
  return (
    <ConfirmButton
      question={`Delete "${props.filename}" and its ${plural(props.chunks, "chunk")}? Searches stop finding it at once.`}
      pendingText="Deleting…"
      onConfirm={async () => {
        await deleteDocumentAction(props.agentId, props.documentId);
        // Cached inspections of this agent may still list the document.
        void queryClient.invalidateQueries({ queryKey: queryKeys.agent(props.agentId) });
      }}
    >
      Delete<span className="sr-only"> {props.filename}</span>
    </ConfirmButton>
  );
}
