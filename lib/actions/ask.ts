"use server";

import { requireRole } from "@/lib/auth";
import { askAgent, type AskResult } from "@/lib/ask/ask";
import { askSchema } from "@/lib/validations/search";
import { parseFilter } from "@/lib/core/filter";
import { describeFailure, isVectorStoreUnavailable } from "@/lib/core/errors";
import { EmbeddingError } from "@/lib/embeddings";
import { toFormState, type FormState } from "./form-state";

export type AskState = FormState & { result?: AskResult };

/** The inspector's Ask panel: what the agent would answer, logged as an inspector try (not the agent's call). */
export async function askFromInspectorAction(agentId: number, question: string, topK: number, filter?: string): Promise<AskState> {
  await requireRole("viewer");
  const parsed = askSchema.safeParse({ question, top_k: topK });
  if (!parsed.success) return toFormState(parsed.error);
  try {
    // The inspector's metadata filter (JSON), as the agent's call would send it.
    const where = filter ? parseFilter(JSON.parse(filter)) : undefined;
    return { ok: true, result: await askAgent(agentId, parsed.data.question, parsed.data.top_k, "inspector", where) };
  } catch (err) {
    // Chroma down and a provider failing are said in the panel; the unexpected goes to the error page.
    if (isVectorStoreUnavailable(err) || err instanceof EmbeddingError) return { message: describeFailure(err) };
    return toFormState(err);
  }
}
