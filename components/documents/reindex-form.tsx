"use client";

import { useActionState, useRef, useState } from "react";
import { reindexDocumentAction, type ReindexState } from "@/lib/actions/documents";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ChunkStrategy } from "@/lib/core/chunking";
import { apiFetch } from "@/lib/client/fetch";
import { StrategySelect } from "./strategy-select";

interface CarryPreview {
  curated: boolean;
  carried: string[];
  notes: string[];
}

export function ReindexForm(props: {
  agentId: number;
  documentId: number;
  size: number;
  overlap: number;
  strategy: ChunkStrategy;
  /** The document has chunk curation, which a re-index carries over by the policy (lib/ingest/carry.ts): previewed first. */
  curated?: boolean;
}) {
  const { agentId, documentId, size, overlap } = props;
  const form = useRef<HTMLFormElement>(null);
  const [preview, setPreview] = useState<CarryPreview | { error: string } | null>(null);
  const showPreview = async () => {
    const data = new FormData(form.current!);
    const query = new URLSearchParams();
    for (const key of ["chunk_size", "chunk_overlap", "chunk_strategy"]) query.set(key, String(data.get(key) ?? ""));
    try {
      setPreview(await apiFetch<CarryPreview>(`/api/agents/${agentId}/documents/${documentId}/carry?${query}`));
    } catch (err) {
      setPreview({ error: (err as Error).message });
    }
  };
  const [state, action] = useActionState<ReindexState, FormData>(reindexDocumentAction.bind(null, agentId, documentId), {});
  // After a failure the form shows the settings that were tried; success opens the new version.
  const values = state.values;
  const invalid = (field: string) => (state.errors?.[field] ? true : undefined);
  return (
    <form
      ref={form}
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
      {props.curated && (
        <button type="button" onClick={showPreview} className="rounded border border-slate-300 px-3 py-1 text-sm">
          Preview what the curation keeps
        </button>
      )}
      <SubmitButton pendingText="Re-indexing…">Re-index with these settings</SubmitButton>
      <p id="reindex-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.message}
      </p>
      {preview && (
        <div role="region" aria-label="What the re-index keeps of the curation" className="w-full text-sm">
          {"error" in preview ? (
            <p className="text-red-700">{preview.error}</p>
          ) : (
            <>
              <p className="font-medium">
                Kept: {preview.carried.length} · kept only as a note: {preview.notes.length}
              </p>
              <ul className="list-inside list-disc text-slate-700">
                {preview.carried.map((line, i) => (
                  <li key={`c${i}`}>{line}</li>
                ))}
                {preview.notes.map((line, i) => (
                  <li key={`n${i}`} className="text-amber-800">
                    Not kept: {line}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </form>
  );
}
