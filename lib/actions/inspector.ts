"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { getDocument } from "@/lib/db/documents";
import { AppError } from "@/lib/http/errors";
import { createPair } from "@/lib/db/pairs";

export interface SavePairState {
  ok?: boolean;
  message?: string;
}

/** Saves the inspector's query and expected document as a labeled pair for the recall dashboard. */
export async function savePairAction(agentId: number, query: string, documentId: number): Promise<SavePairState> {
  await requireRole("editor");
  const trimmed = query.trim();
  if (!trimmed) return { message: "Type a query first." };
  try {
    const doc = getDocument(agentId, documentId);
    createPair(agentId, { query: trimmed, expected_filename: doc.filename });
  } catch (err) {
    if (err instanceof AppError) return { message: err.message };
    throw err;
  }
  revalidatePath(`/agents/${agentId}/eval`);
  return { ok: true, message: "Saved as a labeled pair for the recall dashboard." };
}
