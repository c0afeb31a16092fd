import "server-only";
import { randomUUID } from "node:crypto";
import { AppError, conflict, invalid, notFound } from "../core/errors";
import { env } from "../env.mjs";
import { SIZE_LIMIT_CODES } from "../extract";
import { AgentView, type AgentRef } from "../db/agent-view";
import { sanitizeDocumentPath, sanitizeFilename } from "../validations/filename";
import { chunkSettingsSchema } from "../validations/upload";
import type { ChunkSettings } from "../core/chunking";
import { checkMetadata, type Metadata } from "../core/metadata";
import { INGEST_WORDS, ingestNamedFile, type IngestProgress, type IngestResult } from "./pipeline";
import { isActiveFile, type FileProgress, type UploadFile, type UploadJob } from "./upload-progress";
import { ingestState, type UploadJobRun as JobState } from "./state";

export type { FileProgress, UploadFile, UploadJob };

/** The `expected_files` field of an upload that starts a job: the files the whole upload has. */
export function expectedFilesField(form: FormData, received: number): number {
  const raw = form.get("expected_files");
  if (raw === null || raw === "") return received;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n))
    throw invalid(`expected_files must be a whole number, not "${String(raw)}".`);
  return n;
}

/**
 * Reads the `files` of a request that adds files to an upload job (the job has the chunk
 * settings), from the form as readLimitedForm (lib/http/body.ts) read it: that refused more files
 * than a request may carry. A file's name is its last path segment, unless the field `paths` is
 * `keep`: then its folders stay in the document's name (`guides/setup.md`), as a folder sync
 * sends them; cleaned here once, the document's name as ingest stores it.
 */
export async function readUploadFiles(form: FormData): Promise<UploadFile[]> {
  const files = form.getAll("files").filter((f): f is File => typeof f === "object" && f !== null && "arrayBuffer" in f);
  if (files.length === 0) throw invalid('Attach one or more files in the multipart field "files".');
  const paths = form.get("paths");
  if (paths !== null && paths !== "keep") throw invalid(`paths must be "keep" (or left out), not "${String(paths)}".`);
  const name = paths === "keep" ? sanitizeDocumentPath : sanitizeFilename;
  const metadata = metadataField(form);
  return Promise.all(
    files.map(async (f) => ({ filename: name(f.name), bytes: new Uint8Array(await f.arrayBuffer()), ...(metadata ? { metadata } : {}) })),
  );
}

/**
 * The `metadata` field of an upload: a JSON object for every file of the request, checked before
 * any file is read (a 422 naming the key or value at fault, and nothing is written).
 */
export function metadataField(form: FormData): Metadata | undefined {
  const raw = form.get("metadata");
  if (raw === null || raw === "") return undefined;
  if (typeof raw !== "string") throw invalid('The field "metadata" must be JSON text, not a file.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid(`The field "metadata" is not valid JSON: give an object, as {"product": "router"}.`);
  }
  return checkMetadata(parsed);
}

/** Reads the `files` and chunk settings of a multipart upload; shared by the API and the page. */
export async function readUploadForm(form: FormData): Promise<{ files: UploadFile[] } & Required<ChunkSettings>> {
  const files = await readUploadFiles(form);
  const settings = chunkSettingsSchema.safeParse({
    chunk_size: form.get("chunk_size") || undefined,
    chunk_overlap: form.get("chunk_overlap") || undefined,
    chunk_strategy: form.get("chunk_strategy") || undefined,
  });
  if (!settings.success) throw invalid(settings.error.issues.map((i) => i.message).join(" "));
  return {
    files,
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

/** Ingests one file of an upload (its name cleaned as it was read); a rejection or failure comes back as its result, never thrown. */
async function ingestOne(
  agentId: number,
  file: UploadFile,
  settings: ChunkSettings,
  onProgress?: IngestProgress,
  draftId?: number,
): Promise<IngestResult> {
  try {
    return await ingestNamedFile(agentId, file, settings, onProgress, draftId);
  } catch (err) {
    if (!(err instanceof AppError)) console.error("[kb-inspector] upload failed:", err);
    return {
      filename: file.filename,
      outcome: "failed",
      status: "failed",
      document_id: null,
      chunk_count: 0,
      code: err instanceof AppError ? err.code : "internal",
      message: err instanceof AppError ? err.message : INGEST_WORDS.unexpected,
    };
  }
}

/**
 * Ingests the files of one upload, several at a time; a rejected or failed file never stops the
 * others. The agent is the one the request loaded, not looked up again per file.
 */
export async function ingestFiles(
  agent: AgentRef,
  files: UploadFile[],
  settings: ChunkSettings,
  watch: { onProgress?: (fileIndex: number) => IngestProgress; onResult?: (fileIndex: number, result: IngestResult) => void } = {},
  /** Stage the files in this draft (lib/db/drafts.ts) instead of serving them. */
  draftId?: number,
): Promise<IngestResult[]> {
  const agentId = AgentView.of(agent).id;
  const results: IngestResult[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < files.length; i = next++) {
      results[i] = await ingestOne(agentId, files[i], settings, watch.onProgress?.(i), draftId);
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

// Background uploads (the page's, and POST /api/agents/{id}/uploads): the request answers at
// once and the files are indexed meanwhile, with per-file progress to poll. An upload of more
// files than one request may carry is one job: its first request says how many files will come
// (`expected_files`) and the others add theirs to it.
/**
 * Files of one job indexed at the same time. More than one request's worth: the documents
 * being indexed together share Chroma's add requests, and Chroma's cost is per request, so a
 * bulk upload goes fastest when thousands of chunks are on their way at once.
 */
export const JOB_FILES_IN_PARALLEL = 128;
/** A job that expects more files and has received none for this long is given up. */
export const JOB_STALL_MS = 2 * 60 * 1000;
/** The most files one job may announce. */
export const MAX_FILES_PER_JOB = 100_000;

// Jobs live in this process only: progress is for the person watching the upload.
const jobs = () => ingestState().uploadJobs;
const KEEP_MS = 60 * 60 * 1000;

/**
 * A request adding files to a job answers once the job holds at most this many bytes of files
 * not yet indexed: an upload of thousands of files is never all in memory at once, and the
 * client's next request waits instead.
 */
export const jobHeldBytesLimit = () => 2 * env().MAX_REQUEST_BYTES;

function prune() {
  const cutoff = Date.now() - KEEP_MS;
  for (const [id, s] of jobs()) {
    giveUpIfStalled(s);
    if (s.job.finished && s.job.created_at < cutoff) jobs().delete(id);
  }
}

function giveUpIfStalled(s: JobState) {
  const { job } = s;
  if (job.finished || job.files.length === job.expected_files || s.roomWaiters.length > 0 || Date.now() - s.lastReceivedAt < JOB_STALL_MS)
    return;
  job.not_received = job.expected_files - job.files.length;
  finishIfDone(s);
}

function finishIfDone(s: JobState) {
  const { job } = s;
  if (job.finished || s.running > 0 || s.queue.length > 0) return;
  if (job.files.length + job.not_received !== job.expected_files) return;
  job.finished = true;
  for (const wake of s.finishWaiters) wake();
  s.finishWaiters.clear();
}

function releaseRoom(s: JobState) {
  if (s.heldBytes > jobHeldBytesLimit() && !s.job.finished) return;
  for (const wake of s.roomWaiters.splice(0)) wake();
}

/** Starts as many queued files as the job may index at once. */
function pump(s: JobState) {
  while (s.running < JOB_FILES_IN_PARALLEL && s.queue.length > 0) {
    const { index, file } = s.queue.shift()!;
    const progress = s.job.files[index];
    s.running++;
    void ingestOne(s.job.agent_id, file, s.settings, (p) => Object.assign(progress, p), s.draftId).then((result) => {
      Object.assign(progress, { result, stage: "done" });
      s.job.done_files++;
      s.running--;
      s.heldBytes -= file.bytes.byteLength;
      pump(s);
      finishIfDone(s);
      releaseRoom(s);
    });
  }
}

function receive(s: JobState, files: UploadFile[]) {
  s.lastReceivedAt = Date.now();
  for (const file of files) {
    s.queue.push({ index: s.job.files.length, file });
    s.job.files.push({ filename: file.filename, bytes: file.bytes.byteLength, stage: "queued", done: 0, total: 1 });
    s.heldBytes += file.bytes.byteLength;
  }
  s.job.files_received = s.job.files.length;
  pump(s);
}

/**
 * Starts indexing in the background and returns at once; poll `getUploadJob` for progress.
 * `expectedFiles`: how many files the whole upload has, when more will follow in `addToUploadJob`.
 */
export function startUploadJob(
  agent: AgentRef,
  files: UploadFile[],
  settings: ChunkSettings,
  expectedFiles = files.length,
  /** Stage the files in this draft (lib/db/drafts.ts) instead of serving them; later requests of the job follow. */
  draftId?: number,
): UploadJob {
  const agentId = AgentView.of(agent).id;
  if (!Number.isInteger(expectedFiles) || expectedFiles < files.length || expectedFiles > MAX_FILES_PER_JOB) {
    throw invalid(`expected_files must be a whole number from ${files.length} (the files in this request) to ${MAX_FILES_PER_JOB}.`);
  }
  prune();
  const s: JobState = {
    job: {
      id: randomUUID(),
      agent_id: agentId,
      files: [],
      expected_files: expectedFiles,
      files_received: 0,
      done_files: 0,
      not_received: 0,
      finished: false,
      created_at: Date.now(),
    },
    settings,
    draftId,
    queue: [],
    running: 0,
    heldBytes: 0,
    roomWaiters: [],
    finishWaiters: new Set(),
    lastReceivedAt: Date.now(),
  };
  jobs().set(s.job.id, s);
  receive(s, files);
  return s.job;
}

/**
 * Adds the next files of an upload to its job, indexed with the job's chunk settings. Answers
 * once the job has room for more (see jobHeldBytesLimit), so a client sending its requests one
 * after another never has the server hold the whole upload.
 */
export async function addToUploadJob(agentId: number, id: string, files: UploadFile[]): Promise<UploadJob> {
  const s = jobs().get(id);
  if (!s || s.job.agent_id !== agentId) throw notFound(`Upload ${id}`);
  giveUpIfStalled(s);
  const { job } = s;
  if (job.finished || job.not_received > 0) {
    const why =
      job.not_received > 0
        ? ` without ${job.not_received} of its files (its client stopped sending them, or sent none for ${JOB_STALL_MS / 60_000} minutes)`
        : "";
    throw conflict(`Upload ${id} has ended${why}; start a new upload.`);
  }
  if (job.files.length + files.length > job.expected_files) {
    throw invalid(
      `Upload ${id} expects ${job.expected_files} files and has ${job.files.length}; these ${files.length} would make ${job.files.length + files.length}.`,
    );
  }
  receive(s, files);
  if (s.heldBytes > jobHeldBytesLimit()) {
    await new Promise<void>((resolve) => s.roomWaiters.push(resolve));
    // The client's next request can only start now: the stall clock starts again here.
    s.lastReceivedAt = Date.now();
  }
  return s.job;
}

/** The client will send no more files: the job ends once those it has are indexed. */
export function endUploadJob(agentId: number, id: string): UploadJob | undefined {
  const s = jobs().get(id);
  if (!s || s.job.agent_id !== agentId) return undefined;
  if (!s.job.finished) {
    s.job.not_received = s.job.expected_files - s.job.files.length;
    finishIfDone(s);
  }
  return s.job;
}

/** The longest a progress request may wait for its job to finish. */
export const MAX_UPLOAD_WAIT_S = 60;

/**
 * The clock a progress request's wait runs out by: `start(ms, end)` calls `end` after `ms` and
 * returns what stops it. A test puts its own here to end a wait when it chooses, not after seconds.
 */
export const uploadWaitTimer = {
  start(ms: number, end: () => void): () => void {
    const timer = setTimeout(end, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * Resolves once the job has finished, or after `ms`, or when `signal` aborts, whichever comes
 * first: a client that only needs the end (a command-line import) asks once instead of polling.
 */
export async function waitForUploadJob(agentId: number, id: string, ms: number, signal?: AbortSignal): Promise<void> {
  const s = jobs().get(id);
  if (!s || s.job.agent_id !== agentId || ms <= 0 || signal?.aborted) return;
  giveUpIfStalled(s);
  if (s.job.finished) return;
  await new Promise<void>((resolve) => {
    let stopTimer = () => {};
    const done = () => {
      stopTimer();
      signal?.removeEventListener("abort", done);
      s.finishWaiters.delete(done);
      resolve();
    };
    signal?.addEventListener("abort", done, { once: true });
    s.finishWaiters.add(done);
    // A job whose client went quiet is given up when it is next read, so after this wait too.
    stopTimer = uploadWaitTimer.start(ms, done);
  });
}

/**
 * The job as it stands. `active`: only the files being indexed now and those that were not
 * indexed (rejected or failed), each with its `index` in the upload; queued and indexed files
 * are only counted (`files_received`, `done_files`). For following an upload of thousands of
 * files without reading them all on each look.
 */
export function getUploadJob(agentId: number, id: string, { active = false } = {}): UploadJob | undefined {
  const s = jobs().get(id);
  if (!s || s.job.agent_id !== agentId) return undefined;
  giveUpIfStalled(s);
  if (!active) return s.job;
  const files = s.job.files.flatMap((f: FileProgress, index: number): FileProgress[] => (isActiveFile(f) ? [{ ...f, index }] : []));
  return { ...s.job, files };
}
