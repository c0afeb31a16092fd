"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { startEvaluation, startModeComparison, startRerankComparison } from "@/lib/evaluation/run";
import { evalRequestSchema } from "@/lib/validations/pair";
import { formText, toFormState, type FormState } from "./form-state";

export interface StartEvalState extends FormState<{ k: string; source: string }> {
  /** The run started, or the first of a comparison's runs. */
  runId?: number;
  k?: number;
  /** One run per retrieval mode was started, the later ones after the first. */
  compare?: boolean;
  /** Two runs were started, without and with the agent's reranker. */
  compareReranker?: boolean;
}

/**
 * Starts a run in the agent's mode, or with `intent=compare` one run per mode (`compare-reranker`:
 * one without the agent's reranker and one with it), and answers with
 * the first run's id at once; the page follows the progress by polling.
 */
export async function startEvalAction(agentId: number, _prev: StartEvalState, form: FormData): Promise<StartEvalState> {
  await requireRole("viewer");
  const values = { k: formText(form, "k"), source: formText(form, "source") };
  const compare = form.get("intent") === "compare";
  const compareReranker = form.get("intent") === "compare-reranker";
  const failed = { message: compare ? "The comparison was not started." : "The evaluation was not started.", values };
  // "" is every accepted pair; a source keeps the pairs of that source only ("recall on generated questions").
  const parsed = evalRequestSchema.pick({ k: true, source: true }).safeParse({ k: Number(values.k), source: values.source || undefined });
  if (!parsed.success) return toFormState(parsed.error, failed);
  const source = parsed.data.source ?? null;
  let runId: number;
  try {
    // One evaluation per agent at a time: a comparison's runs go one after the other and hold it throughout.
    const started = compare
      ? startModeComparison(agentId, parsed.data.k, source)
      : compareReranker
        ? startRerankComparison(agentId, parsed.data.k, source)
        : startEvaluation(agentId, parsed.data.k, undefined, source);
    // The outcome, failure included, is kept on the run rows that the page polls.
    started.done.catch(() => {});
    runId = started.runId;
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}/eval`);
  // The values stay with the form, so the next run uses the same pairs unless changed.
  return { runId, k: parsed.data.k, compare, compareReranker, values };
}
