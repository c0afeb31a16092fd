"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { createAgent, updateAgent } from "@/lib/db/agents";
import { requireRole } from "@/lib/auth";
import { AppError } from "@/lib/http/errors";
import { removeAgent } from "@/lib/ingest/remove";
import { agentSchema, agentUpdateSchema } from "@/lib/validations/agent";

export interface FormState {
  message?: string;
  errors?: Record<string, string[] | undefined>;
  ok?: boolean;
}

export async function createAgentAction(_prev: FormState, form: FormData): Promise<FormState> {
  await requireRole("editor");
  const parsed = agentSchema.safeParse({ name: form.get("name"), tools: form.getAll("tools") });
  if (!parsed.success) {
    return { message: "The agent was not created.", errors: parsed.error.flatten().fieldErrors };
  }
  let id: number;
  try {
    id = createAgent(parsed.data).id;
  } catch (err) {
    if (err instanceof AppError) return { message: err.message, errors: { name: [err.message] } };
    throw err;
  }
  revalidatePath("/");
  redirect(`/agents/${id}`);
}

export async function updateAgentAction(agentId: number, _prev: FormState, form: FormData): Promise<FormState> {
  await requireRole("editor");
  const parsed = agentUpdateSchema.safeParse({ name: form.get("name"), tools: form.getAll("tools") });
  if (!parsed.success) return { message: "Nothing was saved.", errors: parsed.error.flatten().fieldErrors };
  try {
    updateAgent(agentId, parsed.data);
  } catch (err) {
    if (err instanceof AppError) return { message: err.message, errors: { name: [err.message] } };
    throw err;
  }
  revalidatePath("/", "layout");
  return { ok: true, message: "Saved." };
}

export async function deleteAgentAction(agentId: number): Promise<void> {
  await requireRole("editor");
  await removeAgent(agentId);
  revalidatePath("/", "layout");
  redirect("/");
}
