import "server-only";
import type { Collection } from "../vector-store/client";
import { getAgent } from "../db/agents";
import { chroma, collectionFor, ownCollections } from "../vector-store/client";
import { storedChunks } from "../db/chunks";
import { documentsOfOtherModels, findDocument, switchEmbeddingModel } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { deleteDocumentVectors } from "../vector-store/chunks";
import { writeChunks } from "../ingest/write-chunks";
import { deleteChunkVectors } from "../db/chunk-vectors";

/**
 * Re-embeds documents from their stored text with the configured embedding model, after a model
 * change (a new version of the local embedder, another provider or model). Each document keeps
 * its id and its own chunk settings; its new vectors go to the current model's collection, and
 * only once they are all written does the row switch model and the old vectors go.
 */

export interface ReembedCandidate {
  id: number;
  agent_id: number;
  filename: string;
  embedding_model: string;
  chunk_count: number;
}

export interface ReembedProgress {
  documentsDone: number;
  documents: number;
  chunksDone: number;
  chunks: number;
  current?: ReembedCandidate;
}

export interface ReembedSummary {
  model: string;
  documents: number;
  chunks: number;
  failed: { document: ReembedCandidate; error: string }[];
}

/** Ready documents embedded with a model other than the configured one (all agents or one). */
export function documentsToReembed(agentId?: number): ReembedCandidate[] {
  if (agentId !== undefined) getAgent(agentId);
  return documentsOfOtherModels(embedder().model, agentId);
}

export async function reembedDocuments(
  options: { agentId?: number; onProgress?: (p: ReembedProgress) => void } = {},
): Promise<ReembedSummary> {
  const model = embedder();
  const candidates = documentsToReembed(options.agentId);
  const summary: ReembedSummary = { model: model.model, documents: 0, chunks: 0, failed: [] };
  if (candidates.length === 0) return summary;

  const target = await collectionFor(model);
  const others = (await ownCollections()).filter((c) => c.name !== target.name);
  const progress: ReembedProgress = {
    documentsDone: 0,
    documents: candidates.length,
    chunksDone: 0,
    chunks: candidates.reduce((s, d) => s + d.chunk_count, 0),
  };
  const report = () => options.onProgress?.({ ...progress });
  report();

  for (const doc of candidates) {
    progress.current = doc;
    try {
      const written = await reembedDocument(doc, target, others, (n) => {
        progress.chunksDone += n;
        report();
      });
      if (written !== null) {
        summary.documents++;
        summary.chunks += written;
      }
    } catch (err) {
      summary.failed.push({ document: doc, error: err instanceof Error ? err.message : String(err) });
    }
    progress.documentsDone++;
    report();
  }

  return summary;
}

/**
 * Removes this app's collections of other models that no longer hold any vector (after a full
 * reindex). Only for a process that does not keep them open, such as the reindex command: a
 * running app caches the collection of its own model, which is never one of these.
 */
export async function dropEmptyCollections(): Promise<string[]> {
  const model = embedder().model;
  const dropped: string[] = [];
  for (const c of await ownCollections()) {
    if (c.metadata?.embedding_model !== model && (await c.count()) === 0) {
      await chroma().deleteCollection({ name: c.name });
      dropped.push(c.name);
    }
  }
  return dropped;
}

/** Returns the number of chunks written, or null when the document went away meanwhile. */
async function reembedDocument(
  doc: ReembedCandidate,
  target: Collection,
  others: Collection[],
  onChunks: (n: number) => void,
): Promise<number | null> {
  const model = embedder();
  const row = findDocument(doc.agent_id, doc.id);
  if (!row) return null;
  // The chunks as stored: the document's own chunking, with the edits and questions of its curation.
  const chunks = storedChunks(row.id);
  // Leftovers of an interrupted run would otherwise make `add` skip or duplicate ids.
  await deleteDocumentVectors(target, doc.agent_id, doc.id);
  deleteChunkVectors(doc.id, { model: model.model });
  try {
    let written = 0;
    await writeChunks({ collection: target, model }, { agentId: doc.agent_id, documentId: doc.id }, chunks, (p) => {
      if (p.stage !== "write") return;
      onChunks(p.done - written);
      written = p.done;
    });
  } catch (err) {
    deleteChunkVectors(doc.id, { model: model.model });
    await deleteDocumentVectors(target, doc.agent_id, doc.id).catch(() => {});
    throw err;
  }
  // Switch only a row that is still the one we read (not deleted or replaced meanwhile).
  if (!switchEmbeddingModel(doc, model.model, chunks.length)) {
    deleteChunkVectors(doc.id, { model: model.model });
    await deleteDocumentVectors(target, doc.agent_id, doc.id);
    return null;
  }
  for (const c of others) await deleteDocumentVectors(c, doc.agent_id, doc.id);
  return chunks.length;
}
