import "server-only";
import { randomUUID } from "node:crypto";
import { AppError, invalid } from "../http/errors";
import { checkFileCount } from "../http/body";
import { SIZE_LIMIT_CODES } from "../extract";
import { ingestFile, type IngestProgress, type IngestResult, type IngestStage } from "./pipeline";
import { sanitizeFilename } from "../validations/filename";
import { chunkSettingsSchema } from "../validations/upload";
import type { ChunkSettings } from "./chunking";

export interface UploadFile {
  filename: string;
  bytes: Uint8Array;
}

/** Reads the `files` and chunk settings of a multipart upload; shared by the API and the page. */
export async function readUploadForm(form: FormData): Promise<{ files: UploadFile[] } & Required<ChunkSettings>> {
  const files = form.getAll("files").filter((f): f is File => typeof f === "object" && f !== null && "arrayBuffer" in f);
  if (files.length === 0) throw invalid('Attach one or more files in the multipart field "files".');
  checkFileCount(form);
  const settings = chunkSettingsSchema.safeParse({
    chunk_size: form.get("chunk_size") || undefined,
    chunk_overlap: form.get("chunk_overlap") || undefined,
    chunk_strategy: form.get("chunk_strategy") || undefined,
  });
  if (!settings.success) throw invalid(settings.error.issues.map((i) => i.message).join(" "));
  return {
    files: await Promise.all(files.map(async (f) => ({ filename: sanitizeFilename(f.name), bytes: new Uint8Array(await f.arrayBuffer()) }))),
    chunkSize: settings.data.chunk_size,
    chunkOverlap: settings.data.chunk_overlap,
    chunkStrategy: settings.data.chunk_strategy,
  };
}

/**
 * Files of one upload indexed at the same time. Their vectors share Chroma requests (see
 * batchedAdd), which is where most of an ingest's time goes; extraction runs in worker threads.
 */
export const FILES_IN_PARALLEL = 32;

/** Ingests the files of one upload, several at a time; a rejected or failed file never stops the others. */
export async function ingestFiles(
  agentId: number,
  files: UploadFile[],
  settings: ChunkSettings,
  watch: { onProgress?: (fileIndex: number) => IngestProgress; onResult?: (fileIndex: number, result: IngestResult) => void } = {},
): Promise<IngestResult[]> {
  const results: IngestResult[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const file = files[i];
      try {
        results[i] = await ingestFile(agentId, file, settings, watch.onProgress?.(i));
      } catch (err) {
        if (!(err instanceof AppError)) console.error("[kb-inspector] upload failed:", err);
        results[i] = {
          filename: file.filename,
          outcome: "failed",
          status: "failed",
          document_id: null,
          chunk_count: 0,
          code: err instanceof AppError ? err.code : "internal",
          message: err instanceof AppError ? err.message : "Indexing failed on the server; the details are in its log.",
        };
      }
      watch.onResult?.(i, results[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILES_IN_PARALLEL, files.length) }, worker));
  return results;
}

export function uploadStatus(results: IngestResult[]): number {
  if (results.some((r) => r.status === "ready")) return 201;
  // Nothing was indexed because Chroma did not answer: the files are fine, try again.
  if (results.some((r) => r.code === "vector_store_unavailable")) return 503;
  // Every file over a size limit (bytes, extracted text, PDF pages): 413, as for one file.
  if (results.every((r) => r.code !== undefined && SIZE_LIMIT_CODES.includes(r.code))) return 413;
  return 422;
}

// Background uploads started from the page, with per-file progress to poll.
export interface FileProgress {
  filename: string;
  bytes: number;
  stage: IngestStage | "queued";
  done: number;
  total: number;
  result?: IngestResult;
}

export interface UploadJob {
  id: string;
  agent_id: number;
  files: FileProgress[];
  finished: boolean;
  created_at: number;
}

// Jobs live in this process only: progress is for the person watching the upload.
const holder = globalThis as unknown as { __kbUploadJobs?: Map<string, UploadJob> };
const jobs = () => (holder.__kbUploadJobs ??= new Map());
const KEEP_MS = 60 * 60 * 1000;

function prune() {
  const cutoff = Date.now() - KEEP_MS;
  for (const [id, job] of jobs()) if (job.finished && job.created_at < cutoff) jobs().delete(id);
}

/** Starts indexing in the background and returns at once; poll `getUploadJob` for progress. */
export function startUploadJob(
  agentId: number,
  files: UploadFile[],
  settings: ChunkSettings,
): UploadJob {
  prune();
  const job: UploadJob = {
    id: randomUUID(),
    agent_id: agentId,
    files: files.map((f) => ({ filename: f.filename, bytes: f.bytes.byteLength, stage: "queued", done: 0, total: 1 })),
    finished: false,
    created_at: Date.now(),
  };
  jobs().set(job.id, job);
  void ingestFiles(agentId, files, settings, {
    onProgress: (i) => (p) => Object.assign(job.files[i], p),
    onResult: (i, result) => Object.assign(job.files[i], { result, stage: "done" }),
  }).finally(() => {
    job.finished = true;
  });
  return job;
}

export function getUploadJob(agentId: number, id: string): UploadJob | undefined {
  const job = jobs().get(id);
  return job && job.agent_id === agentId ? job : undefined;
}
