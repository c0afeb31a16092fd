"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { addChunk, changeChunk, deleteChunk, switchDocument, undoLastChange, type CurationResult } from "@/lib/ingest/curate";
import { chunkChangeSchema, documentSwitchSchema, newChunkSchema } from "@/lib/validations/curation";
import { CURATION_DONE, type CurationDone } from "@/lib/client/curation-done";
import { toFormState } from "./form-state";

/** What a curation change tells the document page: the version to show next, or why nothing changed. */
export interface CurationActionState {
  ok: boolean;
  /** Which change was made (CURATION_DONE), for the new version's page to say so. */
  done?: CurationDone;
  message?: string;
  /** The document's version after the change: the page opens it. */
  documentId?: number;
}

const ACTOR = "browser";

async function run(agentId: number, done: CurationDone, change: () => Promise<CurationResult>): Promise<CurationActionState> {
  await requireRole("editor");
  try {
    const result = await change();
    revalidatePath(`/agents/${agentId}`, "layout");
    if (!result.changed) return { ok: true, message: "Nothing changed.", documentId: result.document_id };
    return { ok: true, done, message: CURATION_DONE[done], documentId: result.document_id };
  } catch (err) {
    return { ok: false, message: toFormState(err).message };
  }
}

/** A chunk's text, whether it is on, or its questions (one per line in the form). */
export async function changeChunkAction(agentId: number, chunkId: number, change: unknown): Promise<CurationActionState> {
  return run(agentId, "changed", async () => changeChunk(agentId, chunkId, chunkChangeSchema.parse(change), ACTOR));
}

export async function addChunkAction(agentId: number, documentId: number, chunk: unknown): Promise<CurationActionState> {
  return run(agentId, "added", async () => addChunk(agentId, documentId, newChunkSchema.parse(chunk), ACTOR));
}

export async function deleteChunkAction(agentId: number, chunkId: number): Promise<CurationActionState> {
  return run(agentId, "deleted", () => deleteChunk(agentId, chunkId, ACTOR));
}

export async function switchDocumentAction(agentId: number, documentId: number, enabled: unknown): Promise<CurationActionState> {
  return run(agentId, enabled ? "on" : "off", async () =>
    switchDocument(agentId, documentId, documentSwitchSchema.parse({ enabled }).enabled, ACTOR),
  );
}

export async function undoAction(agentId: number, documentId: number): Promise<CurationActionState> {
  return run(agentId, "undone", () => undoLastChange(agentId, documentId, ACTOR));
}
