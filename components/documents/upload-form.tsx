"use client";

import { useActionState } from "react";
import { uploadAction, type UploadState } from "@/lib/actions/documents";
import { SubmitButton } from "@/components/ui/submit-button";

const OUTCOME_LABEL = {
  indexed: "indexed",
  replaced: "replaced",
  duplicate: "already present",
  rejected: "rejected",
  failed: "failed",
} as const;

export function UploadForm({ agentId }: { agentId: number }) {
  const [state, action] = useActionState<UploadState, FormData>(uploadAction.bind(null, agentId), {});
  return (
    <form action={action} className="space-y-3 rounded border border-slate-200 bg-white p-4" aria-describedby="upload-status">
      <h2 className="font-semibold">Upload articles</h2>
      <div className="flex flex-wrap items-end gap-4">
        <div className="flex flex-col gap-1">
          <label htmlFor="upload-files" className="text-sm font-medium">
            Files (.txt, .md, .html, .pdf, .docx)
          </label>
          <input id="upload-files" name="files" type="file" multiple required className="text-sm" />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="chunk-size" className="text-sm font-medium">
            Chunk size
          </label>
          <input id="chunk-size" name="chunk_size" type="number" min={1} defaultValue={800} className="w-24 rounded border border-slate-300 px-2 py-1.5 text-sm" />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="chunk-overlap" className="text-sm font-medium">
            Overlap
          </label>
          <input id="chunk-overlap" name="chunk_overlap" type="number" min={0} defaultValue={100} className="w-24 rounded border border-slate-300 px-2 py-1.5 text-sm" />
        </div>
        <SubmitButton pendingText="Indexing…">Upload and index</SubmitButton>
      </div>
      <div id="upload-status" aria-live="polite" className="text-sm">
        {state.message && <p>{state.message}</p>}
        {state.results && (
          <ul className="mt-2 space-y-1">
            {state.results.map((r, i) => (
              <li key={`${r.filename}-${i}`} className={r.status === "ready" ? "text-green-800" : "text-red-700"}>
                <span className="font-medium">{r.filename}</span>: {OUTCOME_LABEL[r.outcome]} — {r.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </form>
  );
}
