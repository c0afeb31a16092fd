import "server-only";
import type { Collection, Metadata, Where } from "chromadb";
import { chroma, chunkId, type ChunkMetadata } from "./client";
import type { Chunk } from "../ingest/chunking";

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

/**
 * Every vector in a collection with the agent and document it belongs to, page by page: the
 * audit's view of what Chroma holds. The one read without an agent filter, since it looks for
 * vectors that no agent accounts for; it returns ids and owners, never chunk text.
 */
export async function* listVectorOwners(
  collection: Collection,
  pageSize = 2_000,
): AsyncGenerator<{ id: string; agent_id: number; document_id: number; chunk_index: number }> {
  for (let offset = 0; ; offset += pageSize) {
    const res = await collection.get({ include: ["metadatas"], limit: pageSize, offset });
    for (const [i, id] of res.ids.entries()) {
      const m = res.metadatas[i] as unknown as Partial<ChunkMetadata> | null;
      const parsed = ID.exec(id);
      yield {
        id,
        agent_id: Number(m?.agent_id ?? -1),
        document_id: Number(m?.document_id ?? parsed?.[1] ?? -1),
        chunk_index: Number(m?.chunk_index ?? parsed?.[2] ?? -1),
      };
    }
    if (res.ids.length < pageSize) return;
  }
}

/** Text and metadata of the given chunks of one agent, keyed by id; ids already gone are absent. */
export async function chunksByIds(collection: Collection, agentId: number, ids: string[]): Promise<Map<string, VectorHit>> {
  if (ids.length === 0) return new Map();
  const res = await collection.get({ ids, where: byAgent(agentId), include: ["documents", "metadatas"] });
  const found = new Map<string, VectorHit>();
  res.ids.forEach((id, i) => {
    const metadata = res.metadatas[i] as unknown as ChunkMetadata | null;
    if (metadata) found.set(id, { id, text: res.documents[i] ?? "", distance: Number.NaN, metadata });
  });
  return found;
}
