import "server-only";
import { createHash } from "node:crypto";
import { getAgent } from "./agents";
import { collectionFor } from "./chroma";
import { chunkText } from "./chunking";
import {
  findByFilename,
  findReadyBySha,
  getDocument,
  insertDocument,
  markFailed,
  markReady,
} from "./documents";
import { embedder } from "./embedder";
import { env } from "./env.mjs";
import { extractText, RejectedFileError } from "./extract";
import { removeDocument } from "./removal";
import { addChunks, deleteDocumentVectors } from "./vectors";

export type IngestStage = "extract" | "chunk" | "embed" | "write" | "done";
export type IngestProgress = (p: { stage: IngestStage; done: number; total: number }) => void;

export type IngestOutcome = "indexed" | "replaced" | "duplicate" | "rejected" | "failed";

export interface IngestResult {
  filename: string;
  outcome: IngestOutcome;
  message: string;
  document_id: number | null;
  status: "ready" | "failed" | "rejected";
  chunk_count: number;
  /** Why a file was rejected, e.g. too_large or type_mismatch. */
  code?: string;
}

// Chunks embedded and written per step: bounds memory and gives the UI progress to show.
const EMBED_SLICE = 64;

/**
 * Extracts, chunks, embeds and writes one file for an agent, all or nothing:
 * a rejected file writes nothing; a failure after the row exists removes the
 * vectors already written and marks the document failed with the reason.
 */
export async function ingestFile(
  agentId: number,
  file: { filename: string; bytes: Uint8Array },
  settings: { chunkSize: number; chunkOverlap: number },
  onProgress: IngestProgress = () => {},
): Promise<IngestResult> {
  getAgent(agentId);
  const filename = file.filename.split(/[\\/]/).pop()!.trim() || "untitled";
  const base = { filename, document_id: null, chunk_count: 0 };

  onProgress({ stage: "extract", done: 0, total: 1 });
  let extracted;
  try {
    extracted = await extractText(filename, file.bytes, { maxBytes: env().MAX_UPLOAD_BYTES });
  } catch (err) {
    if (err instanceof RejectedFileError) return { ...base, outcome: "rejected", status: "rejected", code: err.code, message: err.message };
    throw err;
  }

  const sha256 = createHash("sha256").update(file.bytes).digest("hex");
  const existing = findReadyBySha(agentId, sha256);
  if (existing) {
    return {
      ...base,
      outcome: "duplicate",
      status: "ready",
      document_id: existing.id,
      chunk_count: existing.chunk_count,
      message: `Already present as "${existing.filename}" (document ${existing.id}); nothing was changed.`,
    };
  }

  return indexDocument(
    agentId,
    { filename, type: extracted.type, sha256, bytes: file.bytes.byteLength, text: extracted.text },
    settings,
    onProgress,
  );
}

/**
 * Re-chunks a document's stored text with other settings. The new version is indexed
 * as a new document and replaces the old one only once it is searchable.
 */
export async function reindexDocument(
  agentId: number,
  documentId: number,
  settings: { chunkSize: number; chunkOverlap: number },
  onProgress: IngestProgress = () => {},
): Promise<IngestResult> {
  const doc = getDocument(agentId, documentId);
  return indexDocument(agentId, doc, settings, onProgress);
}

async function indexDocument(
  agentId: number,
  source: { filename: string; type: string; sha256: string; bytes: number; text: string },
  settings: { chunkSize: number; chunkOverlap: number },
  onProgress: IngestProgress,
): Promise<IngestResult> {
  const { filename } = source;
  const base = { filename, document_id: null, chunk_count: 0 };
  onProgress({ stage: "chunk", done: 0, total: 1 });
  const chunks = chunkText(source.text, settings.chunkSize, settings.chunkOverlap);
  const model = embedder();
  const documentId = insertDocument({
    agent_id: agentId,
    filename,
    type: source.type,
    sha256: source.sha256,
    bytes: source.bytes,
    chunk_size: settings.chunkSize,
    chunk_overlap: settings.chunkOverlap,
    text: source.text,
    embedding_model: model.model,
  });

  try {
    await indexChunks(agentId, documentId, filename, chunks, onProgress);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    markFailed(documentId, reason);
    return { ...base, outcome: "failed", status: "failed", document_id: documentId, message: `Indexing failed: ${reason}` };
  }
  if (!markReady(documentId, chunks.length)) {
    // Deleted mid-ingest: the vectors it wrote must not outlive it.
    await deleteDocumentVectors(await collectionFor(model), agentId, documentId);
    return { ...base, outcome: "failed", status: "failed", message: "The agent or the document was deleted while it was being indexed." };
  }

  // The older version goes only once the new one is searchable.
  const replaced = findByFilename(agentId, filename, documentId);
  for (const old of replaced) await removeDocument(agentId, old.id);
  onProgress({ stage: "done", done: 1, total: 1 });
  const replacedReady = replaced.some((d) => d.status === "ready");
  return {
    ...base,
    outcome: replacedReady ? "replaced" : "indexed",
    status: "ready",
    document_id: documentId,
    chunk_count: chunks.length,
    message: replacedReady ? `Replaced the previous version: ${chunks.length} chunks indexed.` : `Indexed ${chunks.length} chunks.`,
  };
}

async function indexChunks(
  agentId: number,
  documentId: number,
  filename: string,
  chunks: ReturnType<typeof chunkText>,
  onProgress: IngestProgress,
): Promise<void> {
  const model = embedder();
  const collection = await collectionFor(model);
  try {
    // Slice by slice, so a long file never holds all its vectors in memory at once.
    for (let i = 0; i < chunks.length; i += EMBED_SLICE) {
      const slice = chunks.slice(i, i + EMBED_SLICE);
      onProgress({ stage: "embed", done: i, total: chunks.length });
      const vectors = await model.embed(slice.map((c) => c.text));
      onProgress({ stage: "write", done: i, total: chunks.length });
      await addChunks(collection, { agentId, documentId, filename }, slice, vectors);
    }
    onProgress({ stage: "write", done: chunks.length, total: chunks.length });
  } catch (err) {
    await deleteDocumentVectors(collection, agentId, documentId).catch(() => {});
    throw err;
  }
}
