"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { getDocument } from "@/lib/db/documents";
import { createPair, findPair } from "@/lib/db/pairs";
import { pairFields } from "@/lib/validations/pair";
import { toFormState, type FormState } from "./form-state";

export type SavePairState = Pick<FormState, "ok" | "message"> & { pairId?: number };

/** Saves the inspector's query and expected document as a labeled pair for the recall dashboard. */
export async function savePairAction(agentId: number, query: string, documentId: number): Promise<SavePairState> {
  await requireRole("editor");
  const parsed = pairFields.pick({ query: true }).safeParse({ query });
  if (!parsed.success) return toFormState(parsed.error);
  try {
    const doc = getDocument(agentId, documentId);
    createPair(agentId, { query: parsed.data.query, expected_filename: doc.filename });
  } catch (err) {
    return toFormState(err);
  }
  revalidatePath(`/agents/${agentId}/eval`);
  return { ok: true, message: "Saved as a labeled pair for the recall dashboard." };
}

/**
 * The labeled pair of the inspector's query and expected document, saved first when there is
 * none: suggested fixes are scored on labeled pairs (GET /api/agents/{id}/pairs/{pairId}/fixes).
 */
export async function pairForFixesAction(agentId: number, query: string, documentId: number): Promise<SavePairState> {
  await requireRole("viewer");
  try {
    const doc = getDocument(agentId, documentId);
    const have = findPair(agentId, query.trim(), doc.filename);
    if (have) return { ok: true, pairId: have.id };
  } catch (err) {
    return toFormState(err);
  }
  const saved = await savePairAction(agentId, query, documentId);
  if (!saved.ok) return saved;
  const doc = getDocument(agentId, documentId);
  return { ...saved, pairId: findPair(agentId, query.trim(), doc.filename)?.id };
}
