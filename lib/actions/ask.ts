"use server";

import { requireRole } from "@/lib/auth";
import { askAgent, type AskResult } from "@/lib/ask/ask";
import { askSchema } from "@/lib/validations/search";
import { toFormState, type FormState } from "./form-state";
import { isVectorStoreUnavailable } from "@/lib/vector-store/client";
import { vectorStoreUnavailable } from "@/lib/core/errors";
import { EmbeddingError } from "@/lib/embeddings";

export type AskState = FormState & { result?: AskResult };

/** The inspector's Ask panel: what the agent would answer, logged as an inspector try (not the agent's call). */
export async function askFromInspectorAction(agentId: number, question: string, topK: number): Promise<AskState> {
  await requireRole("viewer");
  const parsed = askSchema.safeParse({ question, top_k: topK });
  if (!parsed.success) return toFormState(parsed.error);
  try {
    return { ok: true, result: await askAgent(agentId, parsed.data.question, parsed.data.top_k, "inspector") };
  } catch (err) {
    if (isVectorStoreUnavailable(err)) return { message: vectorStoreUnavailable().message };
    if (err instanceof EmbeddingError) return { message: `The embedding provider failed: ${err.message}` };
    return toFormState(err);
  }
}
