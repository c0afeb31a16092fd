"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { setReranker } from "@/lib/rerank/settings";
import { trainReranker, type TrainingReport } from "@/lib/evaluation/rerank-train";
import { agentUpdateSchema, rerankTrainSchema } from "@/lib/validations/agent";
import { formText, toFormState, type FormState } from "./form-state";

export type RerankerFormState = FormState<{ reranker: string; rerank_candidates: string; mmr_lambda: string }>;

const rerankerSchema = agentUpdateSchema.pick({ reranker: true, rerank_candidates: true, mmr_lambda: true }).required({ reranker: true });

/** A number field as the schema reads it: absent when empty (or not shown), else the number typed, a comma taken as a decimal point. */
const numberField = (raw: string) => (raw.trim() === "" ? undefined : Number(raw.trim().replace(",", ".")));

/** Sets the agent's reranker, its candidates and (shown for mmr only) its lambda; `learned` needs a model that won its cross-validation. */
export async function updateRerankerAction(agentId: number, _prev: RerankerFormState, form: FormData): Promise<RerankerFormState> {
  await requireRole("editor");
  const values = {
    reranker: formText(form, "reranker"),
    rerank_candidates: formText(form, "rerank_candidates"),
    mmr_lambda: formText(form, "mmr_lambda"),
  };
  const failed = { message: "The reranker was not changed.", fields: { invalid_request: "reranker" }, values };
  const parsed = rerankerSchema.safeParse({
    reranker: values.reranker,
    rerank_candidates: numberField(values.rerank_candidates),
    mmr_lambda: numberField(values.mmr_lambda),
  });
  if (!parsed.success) return toFormState(parsed.error, failed);
  try {
    setReranker(agentId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  const { reranker } = parsed.data;
  return {
    ok: true,
    message:
      reranker === "none"
        ? "Saved: the agent ranks in its mode's order, without a reranker."
        : `Saved: the agent's results are reranked by ${reranker}.`,
  };
}

/** What the page shows of a training: the model, its cross-validation and whether it was switched on. */
export type TrainingSummary = Pick<TrainingReport, "model" | "cross_validation" | "switched_on" | "reason">;

export interface TrainRerankerState extends FormState {
  report?: TrainingSummary;
}

/** Trains the learned reranker from the agent's labels and answers with its cross-validation; switched on only when it wins (and the box asks for it). */
export async function trainRerankerAction(agentId: number, _prev: TrainRerankerState, form: FormData): Promise<TrainRerankerState> {
  await requireRole("editor");
  const failed = { message: "The learned reranker was not trained." };
  // An unchecked box sends nothing; the box is always in the form, so its absence is "no".
  const parsed = rerankTrainSchema.safeParse({ switch_on: form.get("switch_on") === "on" });
  if (!parsed.success) return toFormState(parsed.error, failed);
  let report: TrainingSummary;
  try {
    const { model, cross_validation, switched_on, reason } = await trainReranker(agentId, {
      k: parsed.data.k,
      folds: parsed.data.folds,
      switchOn: parsed.data.switch_on,
    });
    report = { model, cross_validation, switched_on, reason };
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  return { ok: true, message: `Trained ${report.model.name}.`, report };
}
