import "server-only";
import type { Collection, Metadata, Where } from "chromadb";
import { chroma, chunkId, isVectorStoreUnavailable, live, queryDistances, upsertRecords, type ChunkMetadata } from "./client";
import { agentIdScope, scopeRefused } from "./agent-scope";
import { vectorWrite } from "./write-gate";
import { asSearch, batchedAdd } from "./batched-add";
import { unreachableOf } from "../db/unreachable";
import { noteVectorWrite, suspectDocumentsOf } from "../db/index-check";
import { readVectorRuns } from "../db/chunk-vectors";
import type { Chunk } from "../core/chunking";

// Every read and delete below carries the agent_id filter: tenant isolation lives here. A query
// may carry the agent's own ready chunk ids in its place (agentIdScope), which name nothing of
// another agent. Two reads do without either and return no other agent's data: the audit's list
// of owners (listVectorOwners) and the check of whether chunks' own vectors return them
// (ownVectorsReturned).
const byAgent = (agentId: number): Where => ({ agent_id: agentId });
const byDocument = (agentId: number, documentId: number): Where => ({
  $and: [{ agent_id: agentId }, { document_id: documentId }],
});

/** The embedding model a collection holds (its metadata; its name for one made without). */
const modelOf = (collection: Collection): string => String(collection.metadata?.embedding_model ?? collection.name);

/** Every write of chunk vectors is noted, so a check after a crash knows which are the newest (lib/db/index-check.ts). */
function noted(collection: Collection, agentId: number, ids: string[], suspect: boolean): void {
  const perDocument = new Map<number, number>();
  for (const id of ids) {
    const key = parseChunkId(id);
    if (key) perDocument.set(key.document_id, (perDocument.get(key.document_id) ?? 0) + 1);
  }
  for (const [documentId, n] of perDocument) noteVectorWrite({ collection: collection.name, model: modelOf(collection), agentId, documentId, chunks: n }, suspect);
}

// One question to Chroma, shared by the documents that ask at the same time (so that they hand
// over their vectors in the same turn, see batchedAdd); asked again after a failure.
let maxBatch: Promise<number> | undefined;
function maxBatchSize(): Promise<number> {
  maxBatch ??= chroma()
    .getMaxBatchSize()
    .catch((err: unknown) => {
      maxBatch = undefined;
      throw err;
    });
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
  noteVectorWrite({ collection: collection.name, model: modelOf(collection), ...doc, chunks: chunks.length });
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

/**
 * Writes some chunks of a document again, as addChunks does, as an upsert (a few at a time,
 * unbatched). `byCheck`: the index check writes them and checks them itself, so a crash's follow
 * window does not make their document suspect.
 */
export async function upsertChunks(
  collection: Collection,
  doc: { agentId: number; documentId: number },
  chunks: Pick<Chunk, "index">[],
  embeddings: number[][],
  { byCheck = false } = {},
): Promise<void> {
  noteVectorWrite({ collection: collection.name, model: modelOf(collection), ...doc, chunks: chunks.length }, !byCheck);
  await upsertRecords(collection, {
    ids: chunks.map((c) => chunkId(doc.documentId, c.index)),
    embeddings,
    metadatas: chunks.map((c): ChunkMetadata => ({ agent_id: doc.agentId, document_id: doc.documentId, chunk_index: c.index })) as unknown as Metadata[],
  });
}

export async function deleteDocumentVectors(collection: Collection, agentId: number, documentId: number): Promise<void> {
  await vectorWrite(live(collection), (c) => c.delete({ where: byDocument(agentId, documentId) }));
}

/** How many vectors of a document the collection holds (ids only; a clean-up's check). */
export async function countDocumentVectors(collection: Collection, agentId: number, documentId: number): Promise<number> {
  return (await live(collection).get({ where: byDocument(agentId, documentId), include: [] })).ids.length;
}

export async function deleteAgentVectors(collection: Collection, agentId: number): Promise<void> {
  await vectorWrite(live(collection), (c) => c.delete({ where: byAgent(agentId) }));
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
  if (agentId <= 0) return nearestSettled(collection, { where: byAgent(agentId) }, queryEmbeddings, nResults);
  // Chunks the index is known not to return, and those of documents suspected after a crash
  // until the check has looked at them, are ranked by their exact distance instead.
  const suspects = suspectDocumentsOf(agentId, modelOf(collection));
  const lists = await nearestOfAgent(collection, agentId, suspects, queryEmbeddings, nResults);
  const exact = [...(await suspectVectors(collection, agentId, suspects)), ...(await keptVectors(collection, agentId))];
  if (exact.length === 0) return lists;
  const keys = new Set(exact.map((v) => chunkId(v.document_id, v.chunk_index)));
  return lists.map((list, q) =>
    [
      ...list.filter((r) => !keys.has(chunkId(r.document_id, r.chunk_index))),
      ...exact.map((v) => ({ document_id: v.document_id, chunk_index: v.chunk_index, score: cosineDistance(queryEmbeddings[q], v.embedding) })),
    ]
      .sort(closestFirst)
      .slice(0, nResults),
  );
}

/**
 * Chroma's nearest among the agent's ready chunks, the suspect documents' left out: asked by the
 * list of their ids (lib/vector-store/agent-scope.ts), or by the agent filter when the list is
 * too long or Chroma refused it.
 */
async function nearestOfAgent(collection: Collection, agentId: number, suspects: number[], queryEmbeddings: number[][], nResults: number): Promise<RankedChunk[][]> {
  const scope = agentIdScope(agentId, modelOf(collection), suspects);
  if (scope) {
    try {
      return await nearestSettled(collection, { idsJson: scope.json }, queryEmbeddings, nResults);
    } catch (err) {
      if (isVectorStoreUnavailable(err)) throw err;
      scopeRefused(scope); // an id Chroma does not hold: the filter finds what it does hold
    }
  }
  return nearestSettled(collection, { where: byAgent(agentId) }, queryEmbeddings, nResults);
}

type ExactVector = { document_id: number; chunk_index: number; embedding: ArrayLike<number> };

/** The kept unreachable chunks' vectors, as Chroma stores them. */
async function keptVectors(collection: Collection, agentId: number): Promise<ExactVector[]> {
  const lost = unreachableOf(agentId);
  return lost.length === 0 ? [] : agentVectors(collection, agentId, lost.map((k) => chunkId(k.document_id, k.chunk_index)));
}

/** The suspect documents' vectors from the app's copy, or from Chroma for a document without one. */
async function suspectVectors(collection: Collection, agentId: number, documents: number[]): Promise<ExactVector[]> {
  if (documents.length === 0) return [];
  const out: ExactVector[] = [];
  const copied = new Set<number>();
  for (const r of readVectorRuns(documents, modelOf(collection))) {
    copied.add(r.document_id);
    for (let i = 0; i < r.count; i++) out.push({ document_id: r.document_id, chunk_index: r.first_chunk + i, embedding: r.vectors.subarray(i * r.dimension, (i + 1) * r.dimension) });
  }
  const uncopied = documents.filter((d) => !copied.has(d));
  if (uncopied.length > 0) {
    for (const v of await live(collection).get({ where: { $and: [{ agent_id: agentId }, { document_id: { $in: uncopied } }] }, include: ["embeddings", "metadatas"] }).then(storedVectors)) out.push(v);
  }
  return out;
}

/**
 * Ranking order: by distance, and chunks at the same distance (the same text in several
 * documents, e.g. a shared paragraph) by document and chunk. Chroma orders such ties either way
 * and, at the edge of a top k, returns any of them; with this order a ranking is the same on
 * every call, and a chunk's rank (1 + the chunks before it) is the top_k that returns it.
 */
export function closestFirst(a: RankedChunk, b: RankedChunk): number {
  return a.score - b.score || a.document_id - b.document_id || a.chunk_index - b.chunk_index;
}

/** How far past k the index is read while chunks tied at the edge of a top k keep coming. */
const MAX_TIE_READ = 4096;

/**
 * The nearest `nResults` in ranking order (closestFirst). One more is read than asked for: when
 * it ties with the last, the read is widened until the tie ends, so the ones kept are the first
 * of the tied chunks in that order, not those the index happened to reach.
 */
async function nearestSettled(
  collection: Collection,
  scope: { where: Where } | { idsJson: string },
  queryEmbeddings: number[][],
  nResults: number,
): Promise<RankedChunk[][]> {
  let ask = nResults + 1;
  for (;;) {
    const lists = ranked(await asSearch(() => queryDistances(collection, { queryEmbeddings, nResults: ask, ...scope })));
    const open = lists.some((l) => l.length === ask && nResults > 0 && l[ask - 1].score === l[nResults - 1].score);
    if (!open || ask > nResults + MAX_TIE_READ) return lists.map((l) => l.sort(closestFirst).slice(0, nResults));
    ask = nResults + 4 * (ask - nResults);
  }
}

/**
 * One filtered query that nobody waits for as a search (the health check's probe): it does not
 * count as a search, so a monitor polling /api/health does not make uploads give way.
 */
export async function probeQuery(collection: Collection, queryEmbedding: number[]): Promise<void> {
  await queryDistances(collection, { queryEmbeddings: [queryEmbedding], nResults: 1, where: byAgent(-1) });
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
    const res = await live(collection).get({ include: ["metadatas"], limit: pageSize, offset });
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


/** One stored vector of an agent: what a query by its own vector, or writing it again unchanged, needs. */
export interface StoredVector {
  id: string;
  document_id: number;
  chunk_index: number;
  embedding: number[];
  metadata: Metadata;
}

function storedVectors(res: { ids: string[]; embeddings: number[][]; metadatas: (Metadata | null)[] }): StoredVector[] {
  return res.ids.map((id, i) => {
    const metadata = res.metadatas[i] ?? {};
    const parsed = parseChunkId(id);
    return {
      id,
      document_id: Number(metadata.document_id ?? parsed?.document_id ?? -1),
      chunk_index: Number(metadata.chunk_index ?? parsed?.chunk_index ?? -1),
      embedding: res.embeddings[i],
      metadata,
    };
  });
}

/** Every vector of one agent in a collection, with its embedding and metadata, a page at a time. */
export async function* listAgentVectors(collection: Collection, agentId: number, pageSize = 500): AsyncGenerator<StoredVector[]> {
  for (let offset = 0; ; offset += pageSize) {
    const res = await live(collection).get({ where: byAgent(agentId), include: ["embeddings", "metadatas"], limit: pageSize, offset });
    if (res.ids.length > 0) yield storedVectors(res);
    if (res.ids.length < pageSize) return;
  }
}

/**
 * The given vectors of one agent that Chroma holds, with embedding and metadata. Read by id
 * alone and then filtered to the agent here: Chroma's `get` with both ids and a `where` is many
 * times slower (measured in docs/performance.md, 'Figures behind the code's choices'), and a
 * vector whose metadata names another agent is never returned.
 */
export async function agentVectors(collection: Collection, agentId: number, ids: string[]): Promise<StoredVector[]> {
  if (ids.length === 0) return [];
  const res = await live(collection).get({ ids, include: ["embeddings", "metadatas"] });
  return storedVectors(res).filter((v) => v.metadata.agent_id === agentId);
}

/**
 * Cosine distance as Chroma reports it for a `cosine` collection (1 - cosine similarity), from
 * the stored float32 embedding and the query vector rounded to float32 as it is sent.
 */
export function cosineDistance(query: number[], stored: ArrayLike<number>): number {
  let dot = 0;
  let qq = 0;
  let ss = 0;
  for (let i = 0; i < query.length; i++) {
    const q = Math.fround(query[i]);
    dot += q * stored[i];
    qq += q * q;
    ss += stored[i] * stored[i];
  }
  return qq === 0 || ss === 0 ? 1 : 1 - dot / Math.sqrt(qq * ss);
}

/**
 * The ids and distances of the agent's `nResults` nearest vectors for each query vector, as
 * Chroma returned them (unparsed, so an id of any form counts).
 */
export async function nearestIds(
  collection: Collection,
  agentId: number,
  queryEmbeddings: number[][],
  nResults: number,
): Promise<{ ids: string[]; distances: (number | null)[] }[]> {
  const res = await live(collection).query({ queryEmbeddings, nResults, where: byAgent(agentId), include: ["distances"] });
  return res.ids.map((ids, q) => ({ ids, distances: res.distances[q] ?? [] }));
}

/**
 * Writes some vectors of one agent again with the same ids, embeddings and metadata: removed,
 * then added, so the index inserts each one afresh. Returns what was written (ids not found are
 * skipped). If the add fails after the delete, the audit reports those chunks missing.
 */
export async function readdVectors(collection: Collection, agentId: number, ids: string[], { byCheck = false } = {}): Promise<StoredVector[]> {
  const found = await agentVectors(collection, agentId, ids);
  if (found.length === 0) return [];
  noted(collection, agentId, found.map((v) => v.id), !byCheck);
  await vectorWrite(live(collection), async (c) => {
    await c.delete({ ids: found.map((v) => v.id), where: byAgent(agentId) });
    await c.add({ ids: found.map((v) => v.id), embeddings: found.map((v) => v.embedding), metadatas: found.map((v) => v.metadata) });
  });
  return found;
}

/** Own-vector queries per Chroma call, and how many neighbours each asks for. */
const SELF_QUERY_BATCH = 100;
const SELF_QUERY_RESULTS = 10;
/** A distance this small is the chunk itself or an identical one (cosine: 0 up to float error). */
const SAME_POINT = 1e-4;
/**
 * How long one filtered own-vector request may take: its size follows from the last one's time
 * per query, so that it stays far inside CHROMA_TIMEOUT_MS however slow Chroma's filter is.
 */
const FILTERED_REQUEST_MS = 2_000;

/**
 * Of chunks queried with their own vectors, those the index did not return. Not returned while
 * the results reach farther than the chunk itself, or are fewer than asked (all the index could
 * reach), means the index cannot return it. A chunk crowded out by `nResults` identical ones is
 * not counted: its text is found through them.
 */
export function notReturned(ids: string[], results: { ids: string[]; distances: (number | null)[] }[], nResults: number): string[] {
  return ids.filter((id, q) => {
    const r = results[q] ?? { ids: [], distances: [] };
    if (r.ids.includes(id)) return false;
    const last = r.distances.at(-1) ?? Number.POSITIVE_INFINITY;
    return r.ids.length < nResults || last > SAME_POINT;
  });
}

/**
 * Of the given vectors, the ids that a top-SELF_QUERY_RESULTS query by the vector itself, over
 * the whole collection, returns. Unfiltered: Chroma's agent filter costs it about a second a query
 * for a small agent in a collection of 1,000,000 vectors (it walks the graph looking for the few
 * it may return), where this takes milliseconds. Only the ids asked about are answered; every
 * other id in the results is dropped here, so nothing of another agent leaves this function.
 */
export async function ownVectorsReturned(collection: Collection, vectors: StoredVector[]): Promise<Set<string>> {
  const returned = new Set<string>();
  for (let i = 0; i < vectors.length; i += SELF_QUERY_BATCH) {
    const batch = vectors.slice(i, i + SELF_QUERY_BATCH);
    const res = await live(collection).query({ queryEmbeddings: batch.map((v) => v.embedding), nResults: SELF_QUERY_RESULTS, include: ["distances"] });
    batch.forEach((v, q) => res.ids[q]?.includes(v.id) && returned.add(v.id));
  }
  return returned;
}

/**
 * The given vectors of one agent, each queried with itself: the ids the index cannot return to a
 * search of their agent. A chunk that the unfiltered query returns is reachable (the filtered
 * search walks the same graph and stops later: lib/index-upkeep/audit.test.ts checks the two
 * agree); the others, usually none, are asked again with the agent filter, which decides, in
 * requests sized to take about FILTERED_REQUEST_MS each.
 */
export async function unreachableAmong(collection: Collection, agentId: number, vectors: StoredVector[]): Promise<Set<string>> {
  const returned = await ownVectorsReturned(collection, vectors);
  const unsure = vectors.filter((v) => !returned.has(v.id));
  const lost = new Set<string>();
  for (let i = 0, size = 1; i < unsure.length; ) {
    const batch = unsure.slice(i, i + size);
    const started = performance.now();
    const results = await nearestIds(collection, agentId, batch.map((v) => v.embedding), SELF_QUERY_RESULTS);
    for (const id of notReturned(batch.map((v) => v.id), results, SELF_QUERY_RESULTS)) lost.add(id);
    i += batch.length;
    const perQuery = Math.max(1, performance.now() - started) / batch.length;
    size = Math.max(1, Math.min(SELF_QUERY_BATCH, Math.floor(FILTERED_REQUEST_MS / perQuery)));
  }
  return lost;
}
