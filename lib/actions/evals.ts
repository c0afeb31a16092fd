"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { startEvaluation } from "@/lib/evaluation/run";
import { evalRequestSchema } from "@/lib/validations/pair";
import { formText, toFormState, type FormState } from "./form-state";

export interface StartEvalState extends FormState<{ k: string }> {
  runId?: number;
  k?: number;
}

/** Starts a run and answers with its id at once; the page follows its progress by polling. */
export async function startEvalAction(agentId: number, _prev: StartEvalState, form: FormData): Promise<StartEvalState> {
  await requireRole("viewer");
  const values = { k: formText(form, "k") };
  const failed = { message: "The evaluation was not started.", values };
  const parsed = evalRequestSchema.pick({ k: true }).safeParse({ k: Number(values.k) });
  if (!parsed.success) return toFormState(parsed.error, failed);
  let runId: number;
  try {
    const started = startEvaluation(agentId, parsed.data.k);
    // The outcome, failure included, is kept on the run row that the page polls.
    started.done.catch(() => {});
    runId = started.runId;
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}/eval`);
  return { runId, k: parsed.data.k };
}
