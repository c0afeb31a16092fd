"use client";

import { useActionState } from "react";
import { trainRerankerAction, type TrainRerankerState } from "@/lib/actions/reranker";
import type { CrossValidation } from "@/lib/db/rerankers";
import { SubmitButton } from "@/components/ui/submit-button";
import { CrossValidationTable } from "./cross-validation-table";

/**
 * Trains the learned reranker from the agent's labeled pairs and shows its cross-validation; before
 * a training in this page, the newest model's (`latest`).
 */
export function TrainReranker(props: { agentId: number; latest: { version: number; cross_validation: CrossValidation } | null }) {
  const [state, action] = useActionState<TrainRerankerState, FormData>(trainRerankerAction.bind(null, props.agentId), {});
  const report = state.report;
  const shown = report ? { version: report.model.version, cross_validation: report.cross_validation } : props.latest;
  return (
    <div className="space-y-3">
      <form
        action={action}
        className="flex flex-wrap items-center gap-4"
        aria-label="Train learned reranker"
        aria-describedby="train-status"
      >
        <SubmitButton
          pendingText="Training… ranks every labeled question"
          className="rounded border border-blue-700 px-4 py-2 text-sm font-medium text-blue-800 hover:bg-blue-50 disabled:opacity-60"
        >
          Train learned reranker
        </SubmitButton>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="switch_on" defaultChecked />
          Switch it on when it wins
        </label>
      </form>
      <div id="train-status" aria-live="polite" className="space-y-2 text-sm">
        {state.message && !state.ok && <p className="text-red-700">{state.message}</p>}
        {report && (
          <p className={report.switched_on ? "text-green-800" : undefined}>
            {report.reason} {report.switched_on ? `The agent now ranks with ${report.model.name}.` : "The agent's reranker is unchanged."}
          </p>
        )}
      </div>
      {shown && (
        <div className="max-w-2xl">
          <CrossValidationTable cv={shown.cross_validation} version={shown.version} />
        </div>
      )}
    </div>
  );
}
