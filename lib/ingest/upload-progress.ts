import type { Metadata } from "../core/metadata";
import type { IngestStage } from "./write-chunks";

/** `staged`: written into a draft (lib/db/drafts.ts), served once it is published. */
export type IngestOutcome = "indexed" | "replaced" | "staged" | "duplicate" | "rejected" | "failed";

/** What an ingest of one file came to (lib/ingest/pipeline.ts), as an upload answers and its progress lists it. */
export interface IngestResult {
  filename: string;
  outcome: IngestOutcome;
  message: string;
  document_id: number | null;
  status: "ready" | "failed" | "rejected";
  chunk_count: number;
  /** Why a file was rejected, e.g. too_large or type_mismatch. */
  code?: string;
  /** What became of the curation of the version it replaced (lib/ingest/carry.ts), when it had any. */
  curation?: { carried: string[]; notes: string[] };
}

/** A file of an upload, as read from the request (lib/ingest/uploads.ts). */
export interface UploadFile {
  /** The document's name, cleaned as the form was read (readUploadFiles) and not again. */
  filename: string;
  bytes: Uint8Array;
  /** Metadata the request gives every file of it (its `metadata` field), over what the file says of itself. */
  metadata?: Metadata;
}

/** A file of an upload job and how far it got (what the job's progress lists). */
export interface FileProgress {
  /** Its place in the upload, in a list of the active files only. */
  index?: number;
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
  /** Files the upload sends in all; `files` holds those received so far. */
  expected_files: number;
  /** Files received so far (all of `files`, unless only the active ones are listed). */
  files_received: number;
  /** Files with a result (indexed, duplicate, rejected or failed). */
  done_files: number;
  /** Files that never came: the upload stopped sending them (set when it is given up). */
  not_received: number;
  finished: boolean;
  created_at: number;
}

/**
 * A file a long upload's progress lists: being indexed now, or done and not indexed (rejected or
 * failed). Queued and indexed files are only counted. Shared by `?files=active` and the page.
 */
export const isActiveFile = (f: FileProgress) => (f.result ? f.result.status !== "ready" : f.stage !== "queued");
