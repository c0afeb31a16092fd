import "server-only";
import type { Collection } from "chromadb";
import { getAgent } from "../db/agents";
import { chroma, collectionFor, ownCollections } from "../vector-store/client";
import { chunkText } from "./chunking";
import { db, now } from "../db/client";
import { embedder } from "../embeddings/configured";
import { addChunks, deleteDocumentVectors } from "../vector-store/chunks";

/**
 * Re-embeds documents from their stored text with the configured embedding model, after a model
 * change (a new version of the local embedder, another provider or model). Each document keeps
 * its id and its own chunk settings; its new vectors go to the current model's collection, and
 * only once they are all written does the row switch model and the old vectors go.
 */

export interface ReindexCandidate {
  id: number;
  agent_id: number;
  filename: string;
  embedding_model: string;
  chunk_count: number;
}

export interface ReindexProgress {
  documentsDone: number;
  documents: number;
  chunksDone: number;
  chunks: number;
  current?: ReindexCandidate;
}

export interface ReindexSummary {
  model: string;
  documents: number;
  chunks: number;
  failed: { document: ReindexCandidate; error: string }[];
}

// Same slice size as ingest: bounds memory, and progress moves at least this often.
const EMBED_SLICE = 64;

/** Ready documents embedded with a model other than the configured one (all agents or one). */
export function documentsToReindex(agentId?: number): ReindexCandidate[] {
  const model = embedder().model;
  if (agentId !== undefined) getAgent(agentId);
  const sql = `SELECT id, agent_id, filename, embedding_model, chunk_count FROM documents
    WHERE status = 'ready' AND embedding_model != ? ${agentId === undefined ? "" : "AND agent_id = ?"}
    ORDER BY agent_id, id`;
  const args = agentId === undefined ? [model] : [model, agentId];
  return db().prepare(sql).all(...args) as ReindexCandidate[];
}

export async function reindex(
  options: { agentId?: number; onProgress?: (p: ReindexProgress) => void } = {},
): Promise<ReindexSummary> {
  const model = embedder();
  const candidates = documentsToReindex(options.agentId);
  const summary: ReindexSummary = { model: model.model, documents: 0, chunks: 0, failed: [] };
  if (candidates.length === 0) return summary;

  const target = await collectionFor(model);
  const others = (await ownCollections()).filter((c) => c.name !== target.name);
  const progress: ReindexProgress = {
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
      const written = await reindexDocument(doc, target, others, (n) => {
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
async function reindexDocument(
  doc: ReindexCandidate,
  target: Collection,
  others: Collection[],
  onChunks: (n: number) => void,
): Promise<number | null> {
  const model = embedder();
  const row = db()
    .prepare("SELECT text, chunk_size, chunk_overlap FROM documents WHERE id = ? AND agent_id = ?")
    .get(doc.id, doc.agent_id) as { text: string; chunk_size: number; chunk_overlap: number } | undefined;
  if (!row) return null;
  const chunks = chunkText(row.text, row.chunk_size, row.chunk_overlap);
  // Leftovers of an interrupted run would otherwise make `add` skip or duplicate ids.
  await deleteDocumentVectors(target, doc.agent_id, doc.id);
  try {
    for (let i = 0; i < chunks.length; i += EMBED_SLICE) {
      const slice = chunks.slice(i, i + EMBED_SLICE);
      const vectors = await model.embed(slice.map((c) => c.text));
      await addChunks(target, { agentId: doc.agent_id, documentId: doc.id, filename: doc.filename }, slice, vectors);
      onChunks(slice.length);
    }
  } catch (err) {
    await deleteDocumentVectors(target, doc.agent_id, doc.id).catch(() => {});
    throw err;
  }
  // Switch only a row that is still the one we read (not deleted or replaced meanwhile).
  const { changes } = db()
    .prepare(
      `UPDATE documents SET embedding_model = ?, chunk_count = ?, updated_at = ?
       WHERE id = ? AND agent_id = ? AND status = 'ready' AND embedding_model = ?`,
    )
    .run(model.model, chunks.length, now(), doc.id, doc.agent_id, doc.embedding_model);
  if (changes === 0) {
    await deleteDocumentVectors(target, doc.agent_id, doc.id);
    return null;
  }
  for (const c of others) await deleteDocumentVectors(c, doc.agent_id, doc.id);
  return chunks.length;
}
