"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireRole } from "@/lib/auth";
import { AppError } from "@/lib/http/errors";
import { reindexDocument } from "@/lib/ingest/pipeline";
import { removeDocument } from "@/lib/ingest/remove";
import { startUploadJob } from "@/lib/ingest/upload-jobs";
import { readUploadForm } from "@/lib/ingest/uploads";
import { chunkSettingsSchema } from "@/lib/validations/upload";

export interface StartUploadState {
  message?: string;
  jobId?: string;
}

/** Starts indexing the files in the background; the page follows the job's progress. */
export async function startUploadAction(agentId: number, form: FormData): Promise<StartUploadState> {
  await requireRole("editor");
  try {
    const upload = await readUploadForm(form);
    return { jobId: startUploadJob(agentId, upload.files, upload).id };
  } catch (err) {
    if (err instanceof AppError) return { message: err.message };
    throw err;
  }
}

export async function deleteDocumentAction(agentId: number, documentId: number): Promise<void> {
  await requireRole("editor");
  await removeDocument(agentId, documentId);
  revalidatePath(`/agents/${agentId}`, "layout");
}

export interface ReindexState {
  message?: string;
  errors?: Record<string, string[] | undefined>;
  ok?: boolean;
}

export async function reindexDocumentAction(agentId: number, documentId: number, _prev: ReindexState, form: FormData): Promise<ReindexState> {
  await requireRole("editor");
  const parsed = chunkSettingsSchema.safeParse({
    chunk_size: form.get("chunk_size") || undefined,
    chunk_overlap: form.get("chunk_overlap") || undefined,
  });
  if (!parsed.success) {
    return { message: parsed.error.issues.map((i) => i.message).join(" "), errors: parsed.error.flatten().fieldErrors };
  }
  let newId: number;
  try {
    const result = await reindexDocument(agentId, documentId, { chunkSize: parsed.data.chunk_size, chunkOverlap: parsed.data.chunk_overlap });
    if (result.status !== "ready" || result.document_id === null) return { message: result.message };
    newId = result.document_id;
  } catch (err) {
    if (err instanceof AppError) return { message: err.message };
    throw err;
  }
  revalidatePath(`/agents/${agentId}`, "layout");
  // The new version is a new document: follow it.
  redirect(`/agents/${agentId}/documents/${newId}`);
}
