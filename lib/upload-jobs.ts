import "server-only";
import { randomUUID } from "node:crypto";
import { ingestFile, type IngestResult, type IngestStage } from "./ingest";

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
  files: { filename: string; bytes: Uint8Array }[],
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
  void (async () => {
    for (const [i, file] of files.entries()) {
      const progress = job.files[i];
      try {
        progress.result = await ingestFile(agentId, file, settings, (p) => Object.assign(progress, p));
      } catch (err) {
        progress.result = {
          filename: file.filename,
          outcome: "failed",
          status: "failed",
          document_id: null,
          chunk_count: 0,
          message: err instanceof Error ? err.message : String(err),
        };
      }
      progress.stage = "done";
    }
    job.finished = true;
  })();
  return job;
}

export function getUploadJob(agentId: number, id: string): UploadJob | undefined {
  const job = jobs().get(id);
  return job && job.agent_id === agentId ? job : undefined;
}
