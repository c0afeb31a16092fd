"use server";

import { revalidatePath } from "next/cache";
import { AppError } from "@/lib/errors";
import type { IngestResult } from "@/lib/ingest";
import { removeDocument } from "@/lib/removal";
import { ingestFiles, parseUploadForm } from "@/lib/uploads";

export interface UploadState {
  message?: string;
  results?: IngestResult[];
}

export async function uploadAction(agentId: number, _prev: UploadState, form: FormData): Promise<UploadState> {
  let results: IngestResult[];
  try {
    results = await ingestFiles(agentId, parseUploadForm(form));
  } catch (err) {
    if (err instanceof AppError) return { message: err.message };
    throw err;
  }
  revalidatePath(`/agents/${agentId}`);
  const ok = results.filter((r) => r.status === "ready").length;
  return { message: `${ok} of ${results.length} files are in the knowledge base.`, results };
}

export async function deleteDocumentAction(agentId: number, documentId: number): Promise<void> {
  await removeDocument(agentId, documentId);
  revalidatePath(`/agents/${agentId}`);
}
