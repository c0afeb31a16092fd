"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { createAgent, updateAgent } from "@/lib/db/agents";
import { requireRole } from "@/lib/auth";
import { removeAgent } from "@/lib/ingest/remove";
import { agentSchema, agentUpdateSchema } from "@/lib/validations/agent";
import { embedder } from "@/lib/embeddings/configured";
import { formList, formText, toFormState, type FormState } from "./form-state";

export type AgentFormState = FormState<{ name: string; tools: string[] }>;

const submitted = (form: FormData) => ({ name: formText(form, "name"), tools: formList(form, "tools") });
// A name taken by another agent is an error of the name field.
const fields = { conflict: "name" };

export async function createAgentAction(_prev: AgentFormState, form: FormData): Promise<AgentFormState> {
  await requireRole("editor");
  const values = submitted(form);
  const failed = { message: "The agent was not created.", fields, values };
  const parsed = agentSchema.safeParse(values);
  if (!parsed.success) return toFormState(parsed.error, failed);
  let id: number;
  try {
    id = createAgent(parsed.data).id;
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath("/");
  redirect(`/agents/${id}`);
}

export type AgentSettingsFormState = FormState<{ name: string; tools: string[]; retrieval_mode: string; log_questions?: boolean }>;

/** The checkbox's state when the form has it (an unchecked box sends nothing, so the form marks that it shows one). */
const logQuestions = (form: FormData) => (form.has("log_questions_shown") ? form.get("log_questions") === "on" : undefined);

export async function updateAgentAction(agentId: number, _prev: AgentSettingsFormState, form: FormData): Promise<AgentSettingsFormState> {
  await requireRole("editor");
  const values = { ...submitted(form), retrieval_mode: formText(form, "retrieval_mode"), log_questions: logQuestions(form) };
  const failed = { message: "Nothing was saved.", fields, values };
  // A form without the field keeps the agent's mode (and without the box, its logging).
  const parsed = agentUpdateSchema.safeParse({ ...values, retrieval_mode: values.retrieval_mode || undefined });
  if (!parsed.success) return toFormState(parsed.error, failed);
  try {
    updateAgent(agentId, {
      name: parsed.data.name,
      tools: parsed.data.tools,
      retrieval_mode: parsed.data.retrieval_mode,
      log_questions: parsed.data.log_questions,
    });
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath("/", "layout");
  return { ok: true, message: "Saved." };
}

export type CutFormState = FormState<{ max_distance: string }>;

/** Sets the no-match cut in the configured model's distances; the "clear" button (or an empty field) removes it. */
export async function updateCutAction(agentId: number, _prev: CutFormState, form: FormData): Promise<CutFormState> {
  await requireRole("editor");
  const raw = formText(form, "max_distance").trim();
  const clear = form.get("intent") === "clear" || raw === "";
  const values = { max_distance: raw };
  const parsed = agentUpdateSchema.pick({ max_distance: true }).safeParse({ max_distance: clear ? null : Number(raw.replace(",", ".")) });
  if (!parsed.success) return toFormState(parsed.error, { message: "The cut was not saved.", values });
  const maxDistance = parsed.data.max_distance ?? null;
  try {
    updateAgent(agentId, { cut: maxDistance === null ? null : { maxDistance, model: embedder().model } });
  } catch (err) {
    return toFormState(err, { message: "The cut was not saved.", values });
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  return {
    ok: true,
    message:
      maxDistance === null
        ? "No cut: searches return top_k results however far they are."
        : `Saved: results farther than ${maxDistance} are dropped.`,
  };
}

export async function deleteAgentAction(agentId: number): Promise<void> {
  await requireRole("editor");
  await removeAgent(agentId);
  revalidatePath("/", "layout");
  redirect("/");
}
