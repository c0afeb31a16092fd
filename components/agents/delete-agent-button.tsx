"use client";

import { useTransition } from "react";
import { deleteAgentAction } from "@/lib/actions/agents";

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function DeleteAgentButton(props: { agentId: number; name: string; documents: number; chunks: number }) {
  const [pending, start] = useTransition();
  return (
    <button
      type="button"
      disabled={pending}
      onClick={() => {
        const ok = confirm(`Delete agent "${props.name}"? ${count(props.documents, "document")} and ${count(props.chunks, "chunk")} go with it.`);
        if (ok) start(() => deleteAgentAction(props.agentId));
      }}
      className="rounded bg-red-700 px-4 py-2 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-50"
    >
      {pending ? "Deleting…" : "Delete agent"}
    </button>
  );
}
