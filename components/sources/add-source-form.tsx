"use client";

import { useActionState, useId, useState } from "react";
import { addSourceAction, type SourceFormState } from "@/lib/actions/sources";
import { SubmitButton } from "@/components/ui/submit-button";
import { SettingsFields } from "./settings-fields";

type State = SourceFormState & { round?: number };

const FIELD = "w-full max-w-2xl rounded border border-slate-300 px-3 py-2 text-sm";

/** The fields, mounted afresh after each submission: empty after a success, as submitted after a failure. */
function Fields({ state, errorId }: { state: State; errorId: string }) {
  const id = useId();
  const values = state.values;
  const [kind, setKind] = useState(values?.kind === "urls" ? "urls" : "sitemap");
  const invalid = (field: string) => (state.errors?.[field] ? true : undefined);
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
      <SettingsFields id={id} values={values} invalid={invalid} statusId={errorId} />
    </>
  );
}

/** Adds a sitemap or a list of page URLs; nothing is fetched until the source syncs. */
export function AddSourceForm({ agentId }: { agentId: number }) {
  const [state, action] = useActionState<State, FormData>(
    async (prev, form) => ({ ...(await addSourceAction(agentId, prev, form)), round: (prev.round ?? 0) + 1 }),
    {},
  );
  const errorId = `add-source-${agentId}-status`;
  // The fields' own errors are said after the form's, in the one live region the fields point to.
  const said = [state.message, ...Object.values(state.errors ?? {}).flat()].filter(Boolean).join(" ");
  return (
    <form
      action={action}
      aria-labelledby={`add-source-${agentId}-heading`}
      className="space-y-3 rounded border border-slate-200 bg-white p-4"
    >
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
