import "server-only";
import { db } from "../db/client";
import { readyDocumentsAfter } from "../db/backup";
import { documentVectorRuns, replaceChunkVectors, storedVectorCount } from "../db/chunk-vectors";
import { embeddedText } from "../core/chunking";
import { chunkIndexes, storedChunks } from "../db/chunks";
import { embedder } from "../embeddings/configured";
import type { Embedder } from "../embeddings";
import { noteVectorWrite } from "../db/index-check";
import { addChunks, collectionModel } from "../vector-store/chunks";
import { collectionFor, type Collection } from "../vector-store/client";

/** Documents written to Chroma per step: one step's vectors in memory at a time. */
const DOCUMENTS_PER_STEP = 50;

export interface VectorRestore {
  documents: number;
  vectors: number;
  /** Ready documents without a full copy in the backup, embedded again from their text. */
  re_embedded: number;
  /** Such documents of another model than the configured one: `npm run reindex` embeds them. */
  left_for_reindex: number;
}

/** Adds a document's chunk vectors, noted first as every write of chunk vectors is (lib/db/index-check.ts). */
async function addNoted(
  collection: Collection,
  doc: { agent_id: number; id: number },
  chunks: { index: number }[],
  vectors: number[][],
): Promise<void> {
  const target = { agentId: doc.agent_id, documentId: doc.id };
  noteVectorWrite({ collection: collection.name, model: collectionModel(collection), ...target, chunks: chunks.length });
  await addChunks(collection, target, chunks, vectors);
}

/**
 * Writes every ready document's vectors from the restored database (chunk_vectors) into Chroma,
 * under the same ids and metadata an ingest gives them, so searches answer as before the backup.
 * A document the backup holds no full copy for is embedded again from its chunks' text.
 */
export async function restoreVectors(onProgress: (done: number) => void = () => {}): Promise<VectorRestore> {
  const out: VectorRestore = { documents: 0, vectors: 0, re_embedded: 0, left_for_reindex: 0 };
  const configured = embedder();
  for (let after = 0; ;) {
    const docs = readyDocumentsAfter(db(), after, DOCUMENTS_PER_STEP);
    if (docs.length === 0) return out;
    after = docs[docs.length - 1]!.id;
    for (const doc of docs) {
      // Another model's collection needs only its name and dimension, which the vectors carry.
      const modelOf = (dimension: number) =>
        doc.embedding_model === configured.model ? configured : ({ model: doc.embedding_model, dimension } as Embedder);
      if (storedVectorCount(doc.id, doc.embedding_model) === doc.chunk_count && doc.chunk_count > 0) {
        if (chunkIndexes([doc.id]).length !== doc.chunk_count) throw new Error(`document ${doc.id}: its chunks and vectors do not match`);
        // A stored run at a time: a document of any length is written with flat memory.
        for (const r of documentVectorRuns(doc.id, doc.embedding_model)) {
          const chunks = Array.from({ length: r.count }, (_, i) => ({ index: r.first_chunk + i }));
          const vectors = chunks.map((_, i) => Array.from(r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension)));
          await addNoted(await collectionFor(modelOf(r.dimension)), doc, chunks, vectors);
          out.vectors += r.count;
        }
        out.documents++;
        continue;
      }
      if (doc.embedding_model !== configured.model) {
        out.left_for_reindex++;
        continue;
      }
      const texts = storedChunks(doc.id);
      const chunks = texts.map((c) => ({ index: c.index }));
      const vectors = await configured.embed(texts.map(embeddedText));
      replaceChunkVectors(doc.id, doc.embedding_model, chunks, vectors);
      out.re_embedded++;
      if (chunkIndexes([doc.id]).length !== chunks.length) throw new Error(`document ${doc.id}: its chunks and vectors do not match`);
      await addNoted(await collectionFor(modelOf(vectors[0]?.length ?? 0)), doc, chunks, vectors);
      out.documents++;
      out.vectors += vectors.length;
    }
    onProgress(out.documents);
  }
}
