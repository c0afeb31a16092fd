"use client";

import { useActionState, useId, useState } from "react";
import { addSourceAction, type SourceFormState } from "@/lib/actions/sources";
import { SubmitButton } from "@/components/ui/submit-button";

type State = SourceFormState & { round?: number };

const FIELD = "w-full max-w-2xl rounded border border-slate-300 px-3 py-2 text-sm";

/** The fields, mounted afresh after each submission: empty after a success, as submitted after a failure. */
function Fields({ state, errorId }: { state: State; errorId: string }) {
  const id = useId();
  const values = state.values;
  const [kind, setKind] = useState(values?.kind === "urls" ? "urls" : "sitemap");
  const invalid = (field: string) => (state.errors?.[field] ? true : undefined);
  const intervalHint = `${id}-interval-hint`;
  return (
    <>
      <fieldset className="flex flex-wrap gap-x-5 gap-y-1 text-sm">
        <legend className="mb-1 font-medium">Kind of source</legend>
        <label className="flex items-center gap-2">
          <input type="radio" name="kind" value="sitemap" checked={kind === "sitemap"} onChange={() => setKind("sitemap")} /> A sitemap
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name="kind" value="urls" checked={kind === "urls"} onChange={() => setKind("urls")} /> A list of pages
        </label>
      </fieldset>
      {kind === "sitemap" ? (
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-sitemap`} className="text-sm font-medium">
            Sitemap URL
          </label>
          <input
            id={`${id}-sitemap`}
            name="sitemap"
            inputMode="url"
            autoComplete="off"
            placeholder="https://help.example.com/sitemap.xml"
            defaultValue={values?.sitemap}
            aria-invalid={invalid("sitemap")}
            aria-describedby={errorId}
            className={FIELD}
          />
        </div>
      ) : (
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-urls`} className="text-sm font-medium">
            Page URLs (one per line)
          </label>
          <textarea
            id={`${id}-urls`}
            name="urls"
            rows={4}
            defaultValue={values?.urls}
            aria-invalid={invalid("urls")}
            aria-describedby={errorId}
            className={`${FIELD} font-mono`}
          />
        </div>
      )}
      <div className="flex flex-wrap items-end gap-4">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-on-removed`} className="text-sm font-medium">
            When a page is gone
          </label>
          {/* A select takes its defaultValue only when it mounts; Fields remounts after each submission. */}
          <select id={`${id}-on-removed`} name="on_removed" defaultValue={values?.on_removed || "propose"} className="rounded border border-slate-300 px-2 py-2 text-sm">
            <option value="propose">Propose the removal</option>
            <option value="remove">Remove its document</option>
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-interval`} className="text-sm font-medium">
            Sync every (minutes)
          </label>
          <input
            id={`${id}-interval`}
            name="interval_minutes"
            type="number"
            min={5}
            step={1}
            inputMode="numeric"
            defaultValue={values?.interval_minutes}
            aria-invalid={invalid("interval_minutes")}
            aria-describedby={`${intervalHint} ${errorId}`}
            className="w-36 rounded border border-slate-300 px-3 py-2 text-sm"
          />
        </div>
        <p id={intervalHint} className="pb-2 text-xs text-slate-600">
          Blank: synced only with Sync now. At least 5.
        </p>
      </div>
    </>
  );
}

/** Adds a sitemap or a list of page URLs; nothing is fetched until the source syncs. */
export function AddSourceForm({ agentId }: { agentId: number }) {
  const [state, action] = useActionState<State, FormData>(async (prev, form) => ({ ...(await addSourceAction(agentId, prev, form)), round: (prev.round ?? 0) + 1 }), {});
  const errorId = `add-source-${agentId}-status`;
  // The fields' own errors are said after the form's, in the one live region the fields point to.
  const said = [state.message, ...Object.values(state.errors ?? {}).flat()].filter(Boolean).join(" ");
  return (
    <form action={action} aria-labelledby={`add-source-${agentId}-heading`} className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h3 id={`add-source-${agentId}-heading`} className="font-medium">
        Add a source
      </h3>
      <Fields key={state.round ?? 0} state={state} errorId={errorId} />
      <div className="flex flex-wrap items-center gap-3">
        <SubmitButton pendingText="Adding…">Add source</SubmitButton>
        <p id={errorId} aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
          {said}
        </p>
      </div>
    </form>
  );
}
