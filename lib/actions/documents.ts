"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireRole } from "@/lib/auth";
import { rechunkDocument } from "@/lib/ingest/pipeline";
import { removeDocument } from "@/lib/ingest/remove";
import { endUploadJob } from "@/lib/ingest/uploads";
import { chunkSettingsSchema } from "@/lib/validations/upload";
import { formText, toFormState, type FormState } from "./form-state";

/** The rest of an upload will not be sent (a request failed): its job ends with what it has. */
export async function endUploadAction(agentId: number, jobId: string): Promise<void> {
  await requireRole("editor");
  endUploadJob(agentId, jobId);
}

export async function deleteDocumentAction(agentId: number, documentId: number): Promise<void> {
  await requireRole("editor");
  await removeDocument(agentId, documentId);
  revalidatePath(`/agents/${agentId}`, "layout");
}

export type ReindexState = FormState<{ chunk_size: string; chunk_overlap: string; chunk_strategy: string }>;

export async function reindexDocumentAction(
  agentId: number,
  documentId: number,
  _prev: ReindexState,
  form: FormData,
): Promise<ReindexState> {
  await requireRole("editor");
  const values = {
    chunk_size: formText(form, "chunk_size"),
    chunk_overlap: formText(form, "chunk_overlap"),
    chunk_strategy: formText(form, "chunk_strategy"),
  };
  // An empty field means the default.
  const parsed = chunkSettingsSchema.safeParse({
    chunk_size: values.chunk_size || undefined,
    chunk_overlap: values.chunk_overlap || undefined,
    chunk_strategy: values.chunk_strategy || undefined,
  });
  if (!parsed.success) return toFormState(parsed.error, { values });
  let newId: number;
  try {
    const result = await rechunkDocument(agentId, documentId, {
      chunkSize: parsed.data.chunk_size,
      chunkOverlap: parsed.data.chunk_overlap,
      chunkStrategy: parsed.data.chunk_strategy,
    });
    if (result.status !== "ready" || result.document_id === null) return { message: result.message, values };
    newId = result.document_id;
  } catch (err) {
    return toFormState(err, { values });
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  // The new version is a new document: follow it.
  redirect(`/agents/${agentId}/documents/${newId}`);
}
