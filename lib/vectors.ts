import "server-only";
import type { Collection, Metadata, Where } from "chromadb";
import { chroma, chunkId, type ChunkMetadata } from "./chroma";
import type { Chunk } from "./chunking";

// Every read and delete below carries the agent_id filter: tenant isolation lives here.
const byAgent = (agentId: number): Where => ({ agent_id: agentId });
const byDocument = (agentId: number, documentId: number): Where => ({
  $and: [{ agent_id: agentId }, { document_id: documentId }],
});

let maxBatch: number | undefined;
async function maxBatchSize(): Promise<number> {
  maxBatch ??= await chroma().getMaxBatchSize();
  return maxBatch;
}

export async function addChunks(
  collection: Collection,
  doc: { agentId: number; documentId: number; filename: string },
  chunks: Chunk[],
  embeddings: number[][],
): Promise<void> {
  const size = await maxBatchSize();
  for (let i = 0; i < chunks.length; i += size) {
    const part = chunks.slice(i, i + size);
    await collection.add({
      ids: part.map((c) => chunkId(doc.documentId, c.index)),
      embeddings: embeddings.slice(i, i + size),
      documents: part.map((c) => c.text),
      metadatas: part.map(
        (c): ChunkMetadata => ({
          agent_id: doc.agentId,
          document_id: doc.documentId,
          filename: doc.filename,
          chunk_index: c.index,
          start: c.start,
          end: c.end,
        }),
      ) as unknown as Metadata[],
    });
  }
}

export async function deleteDocumentVectors(collection: Collection, agentId: number, documentId: number): Promise<void> {
  await collection.delete({ where: byDocument(agentId, documentId) });
}

export async function deleteAgentVectors(collection: Collection, agentId: number): Promise<void> {
  await collection.delete({ where: byAgent(agentId) });
}

export interface VectorHit {
  id: string;
  text: string;
  distance: number;
  metadata: ChunkMetadata;
}

/** Nearest chunks of one agent, closest first, for each query vector. */
export async function queryAgent(
  collection: Collection,
  agentId: number,
  queryEmbeddings: number[][],
  nResults: number,
): Promise<VectorHit[][]> {
  const res = await collection.query({
    queryEmbeddings,
    nResults,
    where: byAgent(agentId),
    include: ["documents", "metadatas", "distances"],
  });
  return res.ids.map((ids, q) =>
    ids.map((id, i) => ({
      id,
      text: res.documents[q]?.[i] ?? "",
      distance: res.distances[q]?.[i] ?? Number.NaN,
      metadata: res.metadatas[q]?.[i] as unknown as ChunkMetadata,
    })),
  );
}

export interface RankedChunk {
  document_id: number;
  chunk_index: number;
  score: number;
}

const ID = /^doc(\d+)#(\d+)$/;

/**
 * Like queryAgent but distances only: the ids already name document and chunk, and
 * leaving text and metadata out keeps full rankings fast and within Chroma's limits.
 */
export async function rankAgent(collection: Collection, agentId: number, queryEmbeddings: number[][], nResults: number): Promise<RankedChunk[][]> {
  const res = await collection.query({ queryEmbeddings, nResults, where: byAgent(agentId), include: ["distances"] });
  return res.ids.map((ids, q) =>
    ids.map((id, i) => {
      const m = ID.exec(id);
      return { document_id: Number(m?.[1]), chunk_index: Number(m?.[2]), score: res.distances[q]?.[i] ?? Number.NaN };
    }),
  );
}

/** The stored chunks of one document of one agent, in chunk order. */
export async function documentChunks(collection: Collection, agentId: number, documentId: number): Promise<VectorHit[]> {
  const res = await collection.get({ where: byDocument(agentId, documentId), include: ["documents", "metadatas"] });
  return res.ids
    .map((id, i) => ({ id, text: res.documents[i] ?? "", distance: Number.NaN, metadata: res.metadatas[i] as unknown as ChunkMetadata }))
    .sort((a, b) => a.metadata.chunk_index - b.metadata.chunk_index);
}
