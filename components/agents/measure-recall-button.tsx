"use client";

import { useActionState } from "react";
import { measureIndexRecallAction, type MeasureRecallState } from "@/lib/actions/index-recall";
import { SubmitButton } from "@/components/ui/submit-button";

/** "Measure now": the page shows the new measurement once the action revalidates it. */
export function MeasureRecallButton({ agentId }: { agentId: number }) {
  const [state, action] = useActionState<MeasureRecallState, FormData>(measureIndexRecallAction.bind(null, agentId), {});
  return (
    <form action={action} className="flex flex-wrap items-center gap-3" aria-describedby="measure-recall-status">
      <SubmitButton pendingText="Measuring…">Measure now</SubmitButton>
      <p id="measure-recall-status" aria-live="polite" className={`text-sm ${state.ok ? "text-green-800" : "text-red-700"}`}>
        {state.message}
      </p>
    </form>
  );
}
