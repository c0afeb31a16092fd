import "server-only";
import { randomUUID } from "node:crypto";
import type { IngestResult, IngestStage } from "./pipeline";
import { ingestFiles, type UploadFile } from "./uploads";

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
  settings: { chunkSize: number; chunkOverlap: number },
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
