"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { AppError } from "@/lib/http/errors";
import { startEvaluation } from "@/lib/evaluation/run";
import { evalRequestSchema } from "@/lib/validations/pair";

export interface StartEvalState {
  runId?: number;
  k?: number;
  message?: string;
  errors?: Record<string, string[] | undefined>;
}

/** Starts a run and answers with its id at once; the page follows its progress by polling. */
export async function startEvalAction(agentId: number, _prev: StartEvalState, form: FormData): Promise<StartEvalState> {
  await requireRole("viewer");
  const parsed = evalRequestSchema.pick({ k: true }).safeParse({ k: Number(form.get("k")) });
  if (!parsed.success) return { message: "The evaluation was not started.", errors: parsed.error.flatten().fieldErrors };
  let runId: number;
  try {
    const started = startEvaluation(agentId, parsed.data.k);
    // The outcome, failure included, is kept on the run row that the page polls.
    started.done.catch(() => {});
    runId = started.runId;
  } catch (err) {
    if (err instanceof AppError) return { message: err.message };
    throw err;
  }
  revalidatePath(`/agents/${agentId}/eval`);
  return { runId, k: parsed.data.k };
}
