"use client";

import { deleteDocumentAction } from "@/lib/actions/documents";
import { SubmitButton } from "@/components/ui/submit-button";

export function DeleteDocumentButton({ agentId, documentId, filename }: { agentId: number; documentId: number; filename: string }) {
  return (
    <form
      action={deleteDocumentAction.bind(null, agentId, documentId)}
      onSubmit={(e) => {
        if (!confirm(`Delete "${filename}" and its chunks?`)) e.preventDefault();
      }}
    >
      <SubmitButton pendingText="Deleting…">
        <span className="sr-only">Delete {filename}</span>
        <span aria-hidden>Delete</span>
      </SubmitButton>
    </form>
  );
}
