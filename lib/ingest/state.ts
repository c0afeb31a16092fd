import "server-only";
import { layerState } from "../core/process-state";
import type { ChunkSettings } from "../core/chunking";
import type { UploadFile, UploadJob } from "./upload-progress";

/** A document whose vectors' removal Chroma confirmed (lib/ingest/cleanup.ts), for the orphan sweep. */
export interface RemovedDocument {
  agent_id: number;
  document_id: number;
  chunks: number;
}

/** The vector clean-up loop (lib/ingest/cleanup.ts). */
export interface CleanupState {
  running: Promise<number> | null;
  /** The next run, and when it is due. */
  timer: NodeJS.Timeout | null;
  due: number;
  /** Documents whose removal Chroma confirmed lately, for the orphan sweep (lib/index-upkeep/orphans.ts). */
  removed: Map<string, RemovedDocument>;
}

/** A bulk upload job (lib/ingest/uploads.ts): its progress, the files waiting and who waits for it. */
export interface UploadJobRun {
  job: UploadJob;
  settings: ChunkSettings;
  /** The draft its files are staged in (lib/db/drafts.ts); undefined: they are served. */
  draftId?: number;
  queue: { index: number; file: UploadFile }[];
  running: number;
  /** Bytes of the files received and not finished: what the job holds in memory. */
  heldBytes: number;
  roomWaiters: (() => void)[];
  /** Requests waiting for the job to finish (`waitForUploadJob`). */
  finishWaiters: Set<() => void>;
  lastReceivedAt: number;
}

/** Ingest's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface IngestState {
  /**
   * The vector clean-up run in progress, its retry timer with when it is due, and the documents
   * whose removal it completed lately: removals queued by requests (document deletes, failed
   * ingests) are retried with backoff in the background until Chroma confirms them, one run at a
   * time, and the orphan sweep looks again at what they removed.
   */
  cleanup: CleanupState;
  /**
   * Ids of the documents being ingested in this process (lib/ingest/pipeline.ts): an ingest goes
   * on after the request that started it answered (upload jobs), and an `indexing` row not among
   * them is stuck, which the audit and the health check report.
   */
  activeIngests: Set<number>;
  /**
   * The tails of the waiting lines of ingests, per filename and per content
   * (lib/ingest/keyed-lock.ts): two requests ingesting one filename or one content must run one
   * after the other, whichever bundle they came through.
   */
  keyedLocks: Map<string, Promise<void>>;
  /**
   * Bulk upload jobs by id (lib/ingest/uploads.ts): their files, queue and progress, kept for an
   * hour after they finish. A job is sent in several requests, runs after the request that
   * started it answered, and is polled for its progress.
   */
  uploadJobs: Map<string, UploadJobRun>;
}

/** A clean-up loop with nothing running, scheduled or remembered: what a process starts with. */
export const idleCleanup = (): CleanupState => ({ running: null, timer: null, due: 0, removed: new Map() });

function createIngestState(): IngestState {
  return { cleanup: idleCleanup(), activeIngests: new Set(), keyedLocks: new Map(), uploadJobs: new Map() };
}

/** Ingest's values, made on first use in this process. */
export const ingestState = () => layerState("ingest", createIngestState);
