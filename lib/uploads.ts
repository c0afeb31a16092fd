import "server-only";
import { invalid } from "./errors";
import { ingestFile, type IngestProgress, type IngestResult } from "./ingest";
import { chunkSettingsSchema } from "./validations/upload";

/** Reads the `files` and chunk settings of a multipart upload; shared by the API and the page. */
export function parseUploadForm(form: FormData): { files: File[]; chunkSize: number; chunkOverlap: number } {
  const files = form.getAll("files").filter((f): f is File => typeof f === "object" && f !== null && "arrayBuffer" in f);
  if (files.length === 0) throw invalid('Attach one or more files in the multipart field "files".');
  const settings = chunkSettingsSchema.safeParse({
    chunk_size: form.get("chunk_size") || undefined,
    chunk_overlap: form.get("chunk_overlap") || undefined,
  });
  if (!settings.success) throw invalid(settings.error.issues.map((i) => i.message).join(" "));
  return { files, chunkSize: settings.data.chunk_size, chunkOverlap: settings.data.chunk_overlap };
}

/** Ingests files one after another; a rejected or failed file never stops the others. */
export async function ingestFiles(
  agentId: number,
  upload: { files: File[]; chunkSize: number; chunkOverlap: number },
  onProgress?: (fileIndex: number) => IngestProgress,
): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  for (const [i, file] of upload.files.entries()) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    results.push(
      await ingestFile(agentId, { filename: file.name, bytes }, upload, onProgress?.(i)),
    );
  }
  return results;
}

export function uploadStatus(results: IngestResult[]): number {
  if (results.some((r) => r.status === "ready")) return 201;
  if (results.every((r) => r.code === "too_large")) return 413;
  return 422;
}
