"use client";

import { useActionState } from "react";
import { reindexDocumentAction, type ReindexState } from "@/lib/actions/documents";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ChunkStrategy } from "@/lib/core/chunking";
import { StrategySelect } from "./strategy-select";

export function ReindexForm(props: { agentId: number; documentId: number; size: number; overlap: number; strategy: ChunkStrategy }) {
  const { agentId, documentId, size, overlap } = props;
  const [state, action] = useActionState<ReindexState, FormData>(reindexDocumentAction.bind(null, agentId, documentId), {});
  // After a failure the form shows the settings that were tried; success opens the new version.
  const values = state.values;
  const invalid = (field: string) => (state.errors?.[field] ? true : undefined);
  return (
    <form
      action={action}
      className="flex flex-wrap items-end gap-4 rounded border border-slate-200 bg-white p-3"
      aria-describedby="reindex-status"
    >
      <label className="flex flex-col gap-1 text-sm font-medium">
        Chunk size
        <input
          name="chunk_size"
          type="number"
          min={1}
          defaultValue={values?.chunk_size ?? size}
          aria-invalid={invalid("chunk_size")}
          aria-describedby="reindex-status"
          className="w-28 rounded border border-slate-300 px-2 py-1 font-normal"
        />
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Overlap
        <input
          name="chunk_overlap"
          type="number"
          min={0}
          defaultValue={values?.chunk_overlap ?? overlap}
          aria-invalid={invalid("chunk_overlap")}
          aria-describedby="reindex-status"
          className="w-28 rounded border border-slate-300 px-2 py-1 font-normal"
        />
      </label>
      <StrategySelect
        name="chunk_strategy"
        defaultValue={(values?.chunk_strategy as ChunkStrategy | undefined) ?? props.strategy}
        describedBy="reindex-status"
      />
      <SubmitButton pendingText="Re-indexing…">Re-index with these settings</SubmitButton>
      <p id="reindex-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.message}
      </p>
    </form>
  );
}
