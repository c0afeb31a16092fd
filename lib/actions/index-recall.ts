"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requireRole } from "@/lib/auth";
import { measureIndexRecall, type IndexRecall } from "@/lib/retrieval/index-recall";
import { isVectorStoreUnavailable, vectorStoreUnavailable } from "@/lib/core/errors";
import { toFormState, type FormState } from "./form-state";

export type MeasureRecallState = FormState;

const agentIdSchema = z.number().int().positive();

/** "Measure now": replays the agent's recent searches and keeps the measurement, as the monitor does hourly. */
export async function measureIndexRecallAction(agentId: number, _prev: MeasureRecallState, _form: FormData): Promise<MeasureRecallState> {
  await requireRole("editor");
  const failed = { message: "Index recall was not measured." };
  const parsed = agentIdSchema.safeParse(agentId);
  if (!parsed.success) return toFormState(parsed.error, failed);
  let measured: IndexRecall;
  try {
    measured = await measureIndexRecall(parsed.data);
  } catch (err) {
    // Chroma down is expected now and then: said in the form, not the error page.
    return toFormState(isVectorStoreUnavailable(err) ? vectorStoreUnavailable() : err, failed);
  }
  revalidatePath(`/agents/${parsed.data}`, "layout");
  revalidatePath("/audit");
  // The summary line says why nothing could be measured (no searches yet, no ready documents...).
  return { ok: true, message: measured.served_recall === null ? "Checked just now: nothing could be measured." : "Measured just now." };
}
