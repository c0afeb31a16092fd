import "server-only";
import { createHash } from "node:crypto";
import type { Metadata } from "../core/metadata";
import { patchDocumentsMetadata } from "../db/metadata";
import { AgentView, type AgentRef } from "../db/agent-view";
import { collectionFor } from "../vector-store/client";
import { chunkText, DEFAULT_CHUNK_STRATEGY, type Chunk, type ChunkSettings } from "../core/chunking";
import { MAX_CHUNKS_PER_DOCUMENT } from "../db/keyword-index";
import { forgetDocument } from "../retrieval/corpus-stats";
import {
  commitReady,
  deleteDocumentRow,
  findReadyBySha,
  getDocument,
  insertDocument,
  markFailed,
  readyVersionOf,
  type DocumentWithText,
  type VersionCuration,
} from "../db/documents";
import type { StoredChunk } from "../db/chunks";
import { embedder } from "../embeddings/configured";
import { env } from "../env.mjs";
import { BaseError, describeFailure, failureCode, isVectorStoreUnavailable, notFound } from "../core/errors";
import { extractText, RejectedFileError, type Extracted, type OcrRecord } from "../extract";
import { db, groupedWrite } from "../db/client";
import { completeDocumentPages, hasDocumentFile, keepDocumentFile } from "../db/document-files";
import { sanitizeDocumentPath } from "../validations/filename";
import { plural } from "../format/plural";
import { draftVersionOf, stageDraftVersion } from "../db/drafts";
import { curationOf } from "./version-state";
import { carryCuration, isCurated, versionRows } from "./carry";
import { withKeys } from "./keyed-lock";
import { ingestState } from "./state";
import { cleanupNow, enqueueCleanup } from "./cleanup";
import { writeChunks, type IngestProgress, type KnownVectors } from "./write-chunks";
import type { IngestResult } from "./upload-progress";

export type { IngestProgress, IngestStage } from "./write-chunks";

export type { IngestOutcome, IngestResult } from "./upload-progress";

/**
 * Extracts, chunks, embeds and writes one file for an agent, all or nothing: a rejected
 * file writes nothing; a failure after the row exists marks the document failed with the
 * reason (or removes the row when Chroma was unreachable) and queues the vectors already
 * written for removal. Whatever the result says is what happened.
 */
export async function ingestFile(
  agent: AgentRef,
  file: { filename: string; bytes: Uint8Array; sourceUrl?: string; metadata?: Metadata },
  settings: ChunkSettings,
  onProgress: IngestProgress = () => {},
): Promise<IngestResult> {
  const agentId = AgentView.of(agent).agent.id; // an unknown agent's id is a 404 before anything runs
  // Callers pass a name already cleaned (a basename, or a path they chose to keep); this is a second pass.
  return ingestNamedFile(agentId, { ...file, filename: sanitizeDocumentPath(file.filename) }, settings, onProgress);
}

/**
 * ingestFile for a file whose name is a document's name already (an upload's, cleaned as its
 * form was read: lib/ingest/uploads.ts), of an agent the caller has loaded: neither is looked at
 * again per file. An agent deleted since it was loaded is refused as an unknown one, when its
 * document's row is refused.
 */
export async function ingestNamedFile(
  agent: AgentRef,
  file: { filename: string; bytes: Uint8Array; sourceUrl?: string; metadata?: Metadata },
  settings: ChunkSettings,
  onProgress: IngestProgress = () => {},
  draftId?: number,
): Promise<IngestResult> {
  const agentId = AgentView.of(agent).id;
  const { filename } = file;
  const base = { filename, document_id: null, chunk_count: 0 };

  const sha256 = createHash("sha256").update(file.bytes).digest("hex");
  // One ingest at a time per filename (a replace must see the version before it) and per
  // content (a second copy must find the first), so parallel uploads cannot undo each other.
  // Taken before extraction: files of one upload with the same name queue in upload order.
  return withKeys([`${agentId}:name:${filename}`, `${agentId}:sha:${sha256}`], async () => {
    onProgress({ stage: "extract", done: 0, total: 1 });
    let extracted;
    try {
      extracted = await extractText(filename, file.bytes, { maxBytes: env().MAX_UPLOAD_BYTES });
    } catch (err) {
      if (err instanceof RejectedFileError)
        return { ...base, outcome: "rejected" as const, status: "rejected" as const, code: err.code, message: err.message };
      throw err;
    }
    const existing = findReadyBySha(agentId, sha256);
    if (existing) {
      // A PDF stored before its file and pages were kept gets them now: the same bytes, read the same way.
      if (draftId === undefined) completeKeptFile(agentId, existing.id, { ...extracted, sha256, bytes: file.bytes });
      // The same file again with metadata: the metadata is what the request changes.
      const given = file.metadata ?? {};
      const changes = Object.entries(given).some(([k, v]) => JSON.stringify(existing.metadata[k]) !== JSON.stringify(v));
      if (changes && draftId === undefined) patchDocumentsMetadata(agentId, [existing.id], given);
      return {
        ...base,
        outcome: "duplicate" as const,
        status: "ready" as const,
        document_id: existing.id,
        chunk_count: existing.chunk_count,
        message: `Already present as "${existing.filename}" (document ${existing.id}); ${changes && draftId === undefined ? "its metadata was updated, its text left as it was" : "nothing was changed"}.`,
      };
    }
    try {
      return await indexDocument(
        agentId,
        {
          filename,
          type: extracted.type,
          sha256,
          bytes: file.bytes.byteLength,
          text: extracted.text,
          source_url: file.sourceUrl ?? null,
          // What the file says of itself, then what the upload (or the source) gives for it.
          metadata: { ...extracted.metadata, ...file.metadata },
          ocr: extracted.ocr ?? null,
          page_starts: extracted.pageStarts ?? null,
          ...(KEPT_FILE_TYPES.has(extracted.type) ? { file: file.bytes } : {}),
        },
        settings,
        onProgress,
        undefined,
        // In a draft: staged, replacing the draft's version of the name, or else the served one.
        draftId === undefined
          ? undefined
          : { id: draftId, baseId: draftVersionOf(draftId, filename)?.base_id ?? readyVersionOf(agentId, filename)?.id ?? null },
      );
    } catch (err) {
      // The document's row names an agent that is gone: deleted since the upload loaded it.
      if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_FOREIGNKEY") throw notFound(`Agent ${agentId}`);
      throw err;
    }
  });
}

/**
 * Re-chunks a document's stored text with other settings. The new version is indexed
 * as a new document and replaces the old one only once it is searchable.
 */
export async function rechunkDocument(
  agentId: number,
  documentId: number,
  settings: ChunkSettings,
  onProgress: IngestProgress = () => {},
  draft?: DraftTarget,
): Promise<IngestResult> {
  return indexExtractedText(agentId, getDocument(agentId, documentId), settings, onProgress, undefined, draft);
}

/** How a document's chunk vectors are written: embedded from the chunks' text (writeChunks), or given. */
export type ChunkWriter = typeof writeChunks;

/**
 * Indexes text extracted elsewhere (a document of an imported agent, lib/transfer/import.ts) as a
 * new document with its own chunk settings, by the same path as a re-chunk: the configured
 * model embeds it, unless `given` brings the chunks and the vectors' writer (an imported
 * document whose vectors are of this model).
 */
export async function indexExtractedText(
  agentId: number,
  source: IndexSource,
  settings: ChunkSettings,
  onProgress: IngestProgress = () => {},
  given?: GivenVersion,
  draft?: DraftTarget,
): Promise<IngestResult> {
  return withKeys([`${agentId}:name:${source.filename}`, `${agentId}:sha:${source.sha256}`], () =>
    indexDocument(agentId, source, settings, onProgress, given, draft),
  );
}

/** Ingests in progress in this process: an `indexing` row not among them is stuck. */
export const activeIngests = (): Set<number> => ingestState().activeIngests;

/** An ingest's own words, for describeFailure, for Chroma not answering and for the unexpected. */
export const INGEST_WORDS = {
  unavailable: "the file was not indexed and nothing was kept",
  unexpected: "Indexing failed on the server; the details are in its log.",
};

/** What to tell the user about a failed ingest; internal detail stays in the server log. */
function failure(err: unknown): { code: string; message: string; keepRow: boolean } {
  const code = failureCode(err);
  if (code === "internal" && !(err instanceof BaseError)) console.error("[kb-inspector] ingest failed:", err);
  // Chroma not answering leaves no row: the upload can simply be tried again.
  return { code, message: describeFailure(err, "indexing", INGEST_WORDS), keepRow: !isVectorStoreUnavailable(err) };
}

/**
 * What indexDocument is given instead of chunking the text itself: an imported document's chunks
 * and vectors' writer, or a curation change's version (lib/ingest/curate.ts) with the vectors it
 * can take from the version it replaces.
 */
export interface GivenVersion {
  chunks: StoredChunk[];
  write?: ChunkWriter;
  version?: VersionCuration;
  known?: KnownVectors;
}

/** The draft a version is written into (lib/db/drafts.ts), and the served version it replaces (null: a new name). */
export interface DraftTarget {
  id: number;
  baseId: number | null;
}

/**
 * A new chunking of a document under a name whose ready version is curated: the curation carried
 * over by the one policy (lib/ingest/carry.ts), with what could not be carried as its note.
 */
function carriedVersion(
  agentId: number,
  filename: string,
  chunks: Chunk[],
  draft?: DraftTarget,
): { given: GivenVersion; report: { carried: string[]; notes: string[] } } | null {
  // In a draft, the version it changes is its own version of the name, when it has one.
  const prev = (draft && draftVersionOf(draft.id, filename)) || readyVersionOf(agentId, filename);
  if (!prev) return null;
  const state = curationOf(prev);
  if (!isCurated(state)) return null;
  const carried = carryCuration(state, chunks);
  const rows = versionRows(carried.state);
  const note = carried.notes.length ? carried.notes.join("\n") : null;
  return {
    given: { chunks: rows.chunks, version: { enabled: carried.state.enabled, off: rows.off, removed: carried.state.removed, note } },
    report: { carried: carried.carried, notes: carried.notes },
  };
}

/**
 * A new version's metadata: the keys of the version it replaces (in a draft, the draft's own
 * version of the name where it has one), with the new version's own over them. A key set on a
 * document stays with its new versions until it is removed (PATCH with null).
 */
function versionMetadata(agentId: number, filename: string, own: Metadata | undefined, draft?: DraftTarget): Metadata {
  const prev = (draft && draftVersionOf(draft.id, filename)) || readyVersionOf(agentId, filename);
  return { ...(prev ? prev.metadata : {}), ...own };
}

/**
 * The result of a version whose row went while its vectors were written (deleted, or its draft
 * discarded): the vectors written after its clean-up ran must go too.
 */
async function goneWhileWritten(
  file: { filename: string },
  doc: { agentId: number; documentId: number; vectors: number },
  reason: string,
  message: string,
): Promise<IngestResult> {
  enqueueCleanup(doc.agentId, doc.documentId, doc.vectors, reason);
  await cleanupNow();
  return { filename: file.filename, document_id: null, chunk_count: 0, outcome: "failed", status: "failed", code: "deleted", message };
}

/**
 * A version's text and what it is: its name, type, content hash, size, the page it came from, its
 * metadata (a re-chunk's or import's own; an upload's from the file and the request), what OCR
 * read of it and where its pages start (a re-chunk keeps its document's), and the uploaded file
 * itself when it is kept (a PDF, for the document page's viewer).
 */
export interface IndexSource {
  filename: string;
  type: string;
  sha256: string;
  bytes: number;
  text: string;
  source_url: string | null;
  metadata?: Metadata;
  ocr?: OcrRecord | null;
  page_starts?: number[] | null;
  file?: Uint8Array;
}

/** The uploads whose own bytes are kept: PDFs, which the document page opens at a chunk's page. */
const KEPT_FILE_TYPES = new Set(["pdf"]);

/** The same PDF uploaded again: keeps its file, and gives a document stored without pages its pages, when the file was not kept yet. */
function completeKeptFile(agentId: number, documentId: number, read: Extracted & { sha256: string; bytes: Uint8Array }): void {
  if (!KEPT_FILE_TYPES.has(read.type) || hasDocumentFile(agentId, read.sha256)) return;
  db().transaction(() => {
    keepDocumentFile(agentId, read.sha256, read.type, read.bytes);
    if (read.pageStarts) completeDocumentPages(documentId, read.text, read.pageStarts);
  })();
}

async function indexDocument(
  agentId: number,
  source: IndexSource,
  settings: ChunkSettings,
  onProgress: IngestProgress,
  givenVersion?: GivenVersion,
  draft?: DraftTarget,
): Promise<IngestResult> {
  const { filename } = source;
  const base = { filename, document_id: null, chunk_count: 0 };
  onProgress({ stage: "chunk", done: 0, total: 1 });
  const strategy = settings.chunkStrategy ?? DEFAULT_CHUNK_STRATEGY;
  let given = givenVersion;
  let report: { carried: string[]; notes: string[] } | undefined;
  if (!given) {
    const fresh = chunkText(source.text, settings.chunkSize, settings.chunkOverlap, strategy);
    const carried = carriedVersion(agentId, filename, fresh, draft);
    given = carried?.given ?? { chunks: fresh };
    report = carried?.report;
  }
  if (draft) given = { ...given, version: { ...given.version, draft } };
  const chunks = given.chunks;
  if (chunks.length >= MAX_CHUNKS_PER_DOCUMENT) {
    const message = `The file would make ${chunks.length.toLocaleString("en")} chunks at ${settings.chunkSize} characters; one document holds fewer than ${MAX_CHUNKS_PER_DOCUMENT.toLocaleString("en")}. Use a larger chunk size.`;
    return { ...base, outcome: "rejected", status: "rejected", code: "too_many_chunks", message };
  }
  const model = embedder();
  // Group commits: the documents of an upload are inserted, and those of one Chroma add made
  // ready, in shared SQLite transactions. The row counts as an ingest in progress (not a stuck
  // one) from the moment it exists.
  const documentId = await groupedWrite(() => {
    const id = insertDocument(
      {
        agent_id: agentId,
        filename,
        type: source.type,
        sha256: source.sha256,
        bytes: source.bytes,
        chunk_size: settings.chunkSize,
        chunk_overlap: settings.chunkOverlap,
        chunk_strategy: strategy,
        text: source.text,
        embedding_model: model.model,
        source_url: source.source_url,
        metadata: versionMetadata(agentId, filename, source.metadata, draft),
        ocr: source.ocr ?? null,
        page_starts: source.page_starts ?? null,
      },
      chunks,
      given.version,
    );
    if (source.file) keepDocumentFile(agentId, source.sha256, source.type, source.file);
    activeIngests().add(id);
    return id;
  });
  try {
    await (given.write ?? writeChunks)(
      { collection: await collectionFor(model), model },
      { agentId, documentId },
      chunks,
      onProgress,
      given.known,
    );
  } catch (err) {
    const f = failure(err);
    // Its vectors are queued for removal in the same transaction that fails or deletes it.
    if (f.keepRow) markFailed(agentId, documentId, f.message, chunks.length);
    else deleteDocumentRow(agentId, documentId, "ingest failed: vector store unavailable", { lateWrites: true });
    await cleanupNow();
    return { ...base, outcome: "failed", status: "failed", code: f.code, document_id: f.keepRow ? documentId : null, message: f.message };
  } finally {
    activeIngests().delete(documentId);
  }

  if (draft) {
    // Staged in its draft: served only once the draft is published.
    if (!stageDraftVersion(agentId, documentId, draft.id, filename)) {
      return goneWhileWritten(
        source,
        { agentId, documentId, vectors: chunks.length },
        "draft discarded while writing",
        "The draft was discarded while the version was written.",
      );
    }
    await cleanupNow();
    onProgress({ stage: "done", done: 1, total: 1 });
    return {
      ...base,
      outcome: "staged",
      status: "ready",
      document_id: documentId,
      chunk_count: chunks.length,
      message: `Staged in draft ${draft.id}: ${plural(chunks.length, "chunk")}, served once the draft is published.`,
      ...(report ? { curation: report } : {}),
    };
  }
  const committed = await commitReady(agentId, documentId, filename, chunks.length);
  if (!committed) {
    return goneWhileWritten(
      source,
      { agentId, documentId, vectors: chunks.length },
      "deleted while indexing",
      "The agent or the document was deleted while it was being indexed.",
    );
  }
  for (const old of committed.retired) await forgetDocument(agentId, old, model);
  if (committed.retired.length > 0) await cleanupNow();
  onProgress({ stage: "done", done: 1, total: 1 });
  const replacedReady = committed.retired.some((d) => d.status === "ready");
  const kept = report
    ? ` Its curation: ${plural(report.carried.length, "change")} kept${report.notes.length ? `, ${plural(report.notes.length, "change")} kept as a note on the document` : ""}.`
    : "";
  return {
    ...base,
    outcome: replacedReady ? "replaced" : "indexed",
    status: "ready",
    document_id: documentId,
    chunk_count: chunks.length,
    message:
      (replacedReady
        ? `Replaced the previous version: ${plural(chunks.length, "chunk")} indexed.`
        : `Indexed ${plural(chunks.length, "chunk")}.`) + kept,
    ...(report ? { curation: report } : {}),
  };
}

/**
 * Writes a curation change of a ready document as its new version, under the caller's locks of
 * its name and content (lib/ingest/curate.ts): the same text and settings, the given chunks; it
 * replaces the version once searchable, as a re-chunk does.
 */
export function indexCuratedVersion(
  agentId: number,
  doc: DocumentWithText,
  onProgress: IngestProgress = () => {},
  given: GivenVersion,
  draft?: DraftTarget,
): Promise<IngestResult> {
  const settings = { chunkSize: doc.chunk_size, chunkOverlap: doc.chunk_overlap, chunkStrategy: doc.chunk_strategy };
  return indexDocument(agentId, doc, settings, onProgress, given, draft);
}
