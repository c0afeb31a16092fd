"use client";

import { useActionState, useState } from "react";
import { createPairAction, type PairFormState } from "@/lib/actions/pairs";
import { SubmitButton } from "@/components/ui/submit-button";

export function AddPairForm({ agentId, filenames }: { agentId: number; filenames: string[] }) {
  const [state, action] = useActionState<PairFormState, FormData>(createPairAction.bind(null, agentId), {});
  // React resets the form after every submit, to these defaults: what was typed after a failure, empty after a success.
  const values = state.values;
  const error = (field: string) => state.errors?.[field]?.[0];
  // Mirrors the box, which the form's reset sets back to its default after each submit, to disable the select.
  const [unanswerable, setUnanswerable] = useState(false);
  const [shown, setShown] = useState(state);
  if (shown !== state) {
    setShown(state);
    setUnanswerable(values?.unanswerable ?? false);
  }
  return (
    <form
      action={action}
      className="space-y-3 rounded border border-slate-200 bg-white p-4"
      aria-labelledby="add-pair-heading"
      aria-describedby="add-pair-status"
    >
      <h2 id="add-pair-heading" className="font-semibold">
        Add a pair
      </h2>
      <div className="flex flex-wrap items-end gap-4">
        <div className="flex flex-col gap-1">
          <label htmlFor="pair-query" className="text-sm font-medium">
            Query
          </label>
          <input
            id="pair-query"
            name="query"
            required
            defaultValue={values?.query}
            aria-invalid={!!error("query")}
            aria-describedby="add-pair-status"
            className="w-80 rounded border border-slate-300 px-3 py-2 text-sm"
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="pair-expected" className="text-sm font-medium">
            Expected document
          </label>
          {/* A select takes its defaultValue only when it mounts: the key remounts it for each value submitted. */}
          <select
            key={values?.expected ?? ""}
            id="pair-expected"
            name="expected"
            required
            disabled={unanswerable}
            defaultValue={values?.expected ?? ""}
            aria-invalid={!!error("expected")}
            aria-describedby="add-pair-status"
            className="w-64 rounded border border-slate-300 px-2 py-2 text-sm"
          >
            <option value="" disabled>
              {filenames.length ? "Choose a document" : "No indexed documents"}
            </option>
            {filenames.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
        <label className="flex items-center gap-2 pb-2 text-sm">
          <input
            type="checkbox"
            name="unanswerable"
            defaultChecked={values?.unanswerable}
            onChange={(e) => setUnanswerable(e.target.checked)}
            aria-describedby="add-pair-status"
          />
          No document should answer this (unanswerable)
        </label>
        <div className="flex flex-col gap-1">
          <label htmlFor="pair-note" className="text-sm font-medium">
            Note (optional)
          </label>
          <input
            id="pair-note"
            name="note"
            maxLength={500}
            defaultValue={values?.note}
            aria-invalid={!!error("note")}
            aria-describedby="add-pair-status"
            className="w-56 rounded border border-slate-300 px-3 py-2 text-sm"
          />
        </div>
        <SubmitButton pendingText="Adding…">Add pair</SubmitButton>
      </div>
      <p id="add-pair-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.ok ? state.message : (error("query") ?? error("expected") ?? error("note") ?? state.message)}
      </p>
    </form>
  );
}
