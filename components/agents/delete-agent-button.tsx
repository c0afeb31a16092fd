"use client";

import { useQueryClient } from "@tanstack/react-query";
import { deleteAgentAction } from "@/lib/actions/agents";
import { queryKeys } from "@/lib/client/query-keys";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { plural } from "@/lib/format/plural";

export function DeleteAgentButton(props: { agentId: number; name: string; documents: number; chunks: number }) {
  const queryClient = useQueryClient();
  return (
    <ConfirmButton
      look="solid"
      question={`Delete agent "${props.name}"? ${plural(props.documents, "document")} and ${plural(props.chunks, "chunk")} go with it.`}
      pendingText="Deleting…"
      onConfirm={() => {
        // Dropped first: the action ends in a redirect, which rejects its promise.
        queryClient.removeQueries({ queryKey: queryKeys.agent(props.agentId) });
        return deleteAgentAction(props.agentId);
      }}
    >
      Delete agent
    </ConfirmButton>
  );
}
