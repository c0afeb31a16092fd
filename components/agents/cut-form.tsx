"use client";

import { useActionState } from "react";
import { updateCutAction, type CutFormState } from "@/lib/actions/agents";
import { SubmitButton } from "@/components/ui/submit-button";

/**
 * The agent's no-match cut: a question whose closest chunk is farther than it gets no documents.
 * Distances are raw, in the configured model's space, so a cut set for another model is shown
 * as not applying.
 */
export function CutForm(props: { agentId: number; maxDistance: number | null; setFor: string | null; model: string }) {
  const [state, action] = useActionState<CutFormState, FormData>(updateCutAction.bind(null, props.agentId), {});
  const stale = props.maxDistance !== null && props.setFor !== props.model;
  return (
    <form
      action={action}
      noValidate
      className="space-y-3 rounded border border-slate-200 bg-white p-4"
      aria-labelledby="cut-heading"
      aria-describedby="cut-status"
    >
      <h2 id="cut-heading" className="font-semibold">
        No-match cut
      </h2>
      <p className="text-sm text-slate-600">
        Search results farther than this distance are dropped, so a question nothing in the knowledge base answers gets no documents instead
        of the least bad ones. Distances are raw {props.model} cosine distances: lower is closer. Set it from labeled pairs rather than by
        eye: a run on the Recall tab shows each pair&apos;s distances.
      </p>
      {props.maxDistance === null ? (
        <p className="text-sm">No cut is set: searches return top_k results however far they are.</p>
      ) : stale ? (
        <p role="status" className="rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
          The cut {props.maxDistance} was set for {props.setFor ?? "another model"}. The app now embeds with {props.model}, whose distances
          are not comparable, so it does not apply. Set a new one, or clear it.
        </p>
      ) : (
        <p className="text-sm">
          Results farther than <strong>{props.maxDistance}</strong> are dropped (set for {props.setFor}).
        </p>
      )}
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-1 text-sm font-medium">
          Maximum distance
          <input
            name="max_distance"
            type="number"
            step="any"
            min={0}
            max={2}
            defaultValue={state.values?.max_distance ?? (stale ? "" : (props.maxDistance ?? ""))}
            aria-invalid={state.errors?.max_distance ? true : undefined}
            aria-describedby="cut-status"
            className="w-32 rounded border border-slate-300 px-2 py-1.5 font-normal"
          />
        </label>
        <SubmitButton pendingText="Saving…">Save cut</SubmitButton>
        {props.maxDistance !== null && (
          <button type="submit" name="intent" value="clear" className="rounded border border-slate-300 px-3 py-2 text-sm hover:bg-slate-50">
            Clear cut
          </button>
        )}
      </div>
      <p id="cut-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.errors?.max_distance?.[0] ?? state.message}
      </p>
    </form>
  );
}
