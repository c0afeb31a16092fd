"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { updateAgent } from "@/lib/db/agents";
import { agentUpdateSchema } from "@/lib/validations/agent";
import { formText, toFormState, type FormState } from "./form-state";

export type RetrievalModeState = FormState<{ mode: string }>;

const modeSchema = agentUpdateSchema.pick({ retrieval_mode: true }).required();

/** Makes the agent's search rank in the mode the submitting button names (field `mode`). */
export async function setRetrievalModeAction(agentId: number, _prev: RetrievalModeState, form: FormData): Promise<RetrievalModeState> {
  await requireRole("editor");
  const values = { mode: formText(form, "mode") };
  const failed = { message: "The mode was not changed.", values };
  const parsed = modeSchema.safeParse({ retrieval_mode: values.mode });
  if (!parsed.success) return toFormState(parsed.error, failed);
  const mode = parsed.data.retrieval_mode;
  try {
    updateAgent(agentId, { retrieval_mode: mode });
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  return { ok: true, message: `The agent now searches by ${mode}.` };
}
