import "server-only";
import type { Collection, Metadata, Where } from "chromadb";
import { chroma, chunkId, type ChunkMetadata } from "./client";
import { batchedAdd } from "./batched-add";
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

/**
 * Writes a document's chunk vectors. Chroma keeps the vector and the ids a query filters on;
 * the chunk text is in SQLite (`chunks`), so Chroma does not index it a second time.
 */
export async function addChunks(
  collection: Collection,
  doc: { agentId: number; documentId: number },
  chunks: Pick<Chunk, "index">[],
  embeddings: number[][],
): Promise<void> {
  await batchedAdd(
    collection,
    {
      ids: chunks.map((c) => chunkId(doc.documentId, c.index)),
      embeddings,
      metadatas: chunks.map((c): ChunkMetadata => ({ agent_id: doc.agentId, document_id: doc.documentId, chunk_index: c.index })) as unknown as Metadata[],
    },
    await maxBatchSize(),
  );
}

export async function deleteDocumentVectors(collection: Collection, agentId: number, documentId: number): Promise<void> {
  await collection.delete({ where: byDocument(agentId, documentId) });
}

export async function deleteAgentVectors(collection: Collection, agentId: number): Promise<void> {
  await collection.delete({ where: byAgent(agentId) });
}

export interface RankedChunk {
  document_id: number;
  chunk_index: number;
  /** Chroma's raw distance in the collection's space: lower is closer. */
  score: number;
}

const ID = /^doc(\d+)#(\d+)$/;

export function parseChunkId(id: string): { document_id: number; chunk_index: number } | null {
  const m = ID.exec(id);
  return m ? { document_id: Number(m[1]), chunk_index: Number(m[2]) } : null;
}

function ranked(res: { ids: string[][]; distances: (number | null)[][] }): RankedChunk[][] {
  return res.ids.map((ids, q) =>
    ids.flatMap((id, i) => {
      const key = parseChunkId(id);
      return key ? [{ ...key, score: res.distances[q]?.[i] ?? Number.NaN }] : [];
    }),
  );
}

/**
 * The nearest `nResults` chunks of one agent for each query vector, closest first: ids and
 * distances only (the id names document and chunk; the text is read from SQLite for the few
 * that are shown).
 */
export async function queryAgent(collection: Collection, agentId: number, queryEmbeddings: number[][], nResults: number): Promise<RankedChunk[][]> {
  const res = await collection.query({ queryEmbeddings, nResults, where: byAgent(agentId), include: ["distances"] });
  return ranked(res);
}

/**
 * The exact distances from each query vector to the given chunks of one agent, closest first.
 * Restricted to a few ids, Chroma compares the query with each of them directly instead of
 * walking the index, so a chunk the index cannot reach still gets its distance.
 */
export async function distancesTo(collection: Collection, agentId: number, queryEmbeddings: number[][], ids: string[]): Promise<RankedChunk[][]> {
  if (ids.length === 0) return queryEmbeddings.map(() => []);
  const res = await collection.query({ queryEmbeddings, ids, nResults: ids.length, where: byAgent(agentId), include: ["distances"] });
  return ranked(res);
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
      const parsed = parseChunkId(id);
      yield {
        id,
        agent_id: Number(m?.agent_id ?? -1),
        document_id: Number(m?.document_id ?? parsed?.document_id ?? -1),
        chunk_index: Number(m?.chunk_index ?? parsed?.chunk_index ?? -1),
      };
    }
    if (res.ids.length < pageSize) return;
  }
}

