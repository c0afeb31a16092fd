import "server-only";
import { db } from "../db/client";
import { readyDocumentsAfter } from "../db/backup";
import { readVectorRuns, replaceChunkVectors } from "../db/chunk-vectors";
import { chunkIndexes, storedChunks } from "../db/chunks";
import { embedder } from "../embeddings/configured";
import type { Embedder } from "../embeddings";
import { addChunks } from "../vector-store/chunks";
import { collectionFor } from "../vector-store/client";

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

/**
 * Writes every ready document's vectors from the restored database (chunk_vectors) into Chroma,
 * under the same ids and metadata an ingest gives them, so searches answer as before the backup.
 * A document the backup holds no full copy for is embedded again from its chunks' text.
 */
export async function restoreVectors(onProgress: (done: number) => void = () => {}): Promise<VectorRestore> {
  const out: VectorRestore = { documents: 0, vectors: 0, re_embedded: 0, left_for_reindex: 0 };
  const configured = embedder();
  for (let after = 0; ; ) {
    const docs = readyDocumentsAfter(db(), after, DOCUMENTS_PER_STEP);
    if (docs.length === 0) return out;
    after = docs[docs.length - 1]!.id;
    for (const doc of docs) {
      const runs = readVectorRuns([doc.id], doc.embedding_model);
      const stored = runs.reduce((n, r) => n + r.count, 0);
      let chunks: { index: number }[];
      let vectors: number[][];
      if (stored === doc.chunk_count && runs.length > 0) {
        chunks = runs.flatMap((r) => Array.from({ length: r.count }, (_, i) => ({ index: r.first_chunk + i })));
        vectors = runs.flatMap((r) => Array.from({ length: r.count }, (_, i) => Array.from(r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension))));
      } else if (doc.embedding_model === configured.model) {
        const texts = storedChunks(doc.id);
        chunks = texts.map((c) => ({ index: c.index }));
        vectors = await configured.embed(texts.map((c) => c.text));
        replaceChunkVectors(doc.id, doc.embedding_model, chunks, vectors);
        out.re_embedded++;
      } else {
        out.left_for_reindex++;
        continue;
      }
      const dimension = vectors[0]?.length ?? 0;
      // Another model's collection needs only its name and dimension, which the vectors carry.
      const model = doc.embedding_model === configured.model ? configured : ({ model: doc.embedding_model, dimension } as Embedder);
      if (chunkIndexes([doc.id]).length !== chunks.length) throw new Error(`document ${doc.id}: its chunks and vectors do not match`);
      await addChunks(await collectionFor(model), { agentId: doc.agent_id, documentId: doc.id }, chunks, vectors);
      out.documents++;
      out.vectors += vectors.length;
    }
    onProgress(out.documents);
  }
}
