"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { startEvaluation } from "@/lib/evaluation/run";
import { RETRIEVAL_MODES } from "@/lib/validations/agent";
import { evalRequestSchema } from "@/lib/validations/pair";
import { formText, toFormState, type FormState } from "./form-state";

export interface StartEvalState extends FormState<{ k: string }> {
  /** The run started, or the first of a comparison's runs. */
  runId?: number;
  k?: number;
  /** One run per retrieval mode was started, the later ones after the first. */
  compare?: boolean;
}

/**
 * One run per mode, each started when the one before is done so they do not compete for the CPU;
 * the chain stops at a failure, which is kept on that run's row.
 */
function runEachMode(agentId: number, k: number): number {
  const [first, ...rest] = RETRIEVAL_MODES;
  const started = startEvaluation(agentId, k, first);
  rest.reduce((previous, mode) => previous.then(() => startEvaluation(agentId, k, mode).done), started.done).catch(() => {});
  return started.runId;
}

/**
 * Starts a run in the agent's mode, or with `intent=compare` one run per mode, and answers with
 * the first run's id at once; the page follows the progress by polling.
 */
export async function startEvalAction(agentId: number, _prev: StartEvalState, form: FormData): Promise<StartEvalState> {
  await requireRole("viewer");
  const values = { k: formText(form, "k") };
  const compare = form.get("intent") === "compare";
  const failed = { message: compare ? "The comparison was not started." : "The evaluation was not started.", values };
  const parsed = evalRequestSchema.pick({ k: true }).safeParse({ k: Number(values.k) });
  if (!parsed.success) return toFormState(parsed.error, failed);
  let runId: number;
  try {
    if (compare) runId = runEachMode(agentId, parsed.data.k);
    else {
      const started = startEvaluation(agentId, parsed.data.k);
      // The outcome, failure included, is kept on the run row that the page polls.
      started.done.catch(() => {});
      runId = started.runId;
    }
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}/eval`);
  return { runId, k: parsed.data.k, compare };
}
