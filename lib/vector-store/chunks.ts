import "server-only";
import type { Collection, Metadata, Where } from "chromadb";
import type { Chunk } from "../core/chunking";
import { chroma, chunkId, isVectorStoreUnavailable, live, queryDistances, upsertRecords, type ChunkMetadata } from "./client";
import { vectorWrite } from "./write-gate";
import { asSearch, batchedAdd } from "./batched-add";

// The agent-filtered chunk operations: ids, vectors and metadata in and out, nothing decided
// about what to rank or what a write means (lib/retrieval/index-candidates.ts ranks around what
// the index cannot return; writers note their writes in lib/db/index-check.ts themselves).
//
// Every read and delete below carries the agent_id filter: tenant isolation lives here. A query
// may carry the agent's own ready chunk ids in its place (AgentScope.idsJson, made from SQLite by
// lib/retrieval/id-scope.ts), which name nothing of another agent. Two reads do without either and
// return no other agent's data: the audit's list of owners (listVectorOwners) and the check of
// whether chunks' own vectors return them (ownVectorsReturned).
const byAgent = (agentId: number): Where => ({ agent_id: agentId });
const byDocument = (agentId: number, documentId: number): Where => ({
  $and: [{ agent_id: agentId }, { document_id: documentId }],
});

/** The embedding model a collection holds (its metadata; its name for one made without). */
export const collectionModel = (collection: Collection): string => String(collection.metadata?.embedding_model ?? collection.name);

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
 * the chunk text is in SQLite (`chunks`), so Chroma does not index it a second time. The writer
 * notes the write first (lib/db/index-check.ts), so a crash between the two leaves the note.
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
      metadatas: chunks.map((c): ChunkMetadata => ({
        agent_id: doc.agentId,
        document_id: doc.documentId,
        chunk_index: c.index,
      })) as unknown as Metadata[],
    },
    await maxBatchSize(),
  );
}

/** Writes some chunks of a document again, as addChunks does, as an upsert (a few at a time, unbatched). */
export async function upsertChunks(
  collection: Collection,
  doc: { agentId: number; documentId: number },
  chunks: Pick<Chunk, "index">[],
  embeddings: number[][],
): Promise<void> {
  await upsertRecords(collection, {
    ids: chunks.map((c) => chunkId(doc.documentId, c.index)),
    embeddings,
    metadatas: chunks.map((c): ChunkMetadata => ({
      agent_id: doc.agentId,
      document_id: doc.documentId,
      chunk_index: c.index,
    })) as unknown as Metadata[],
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
 * What a query of one agent may return: its chunks by the agent_id filter, or, with `idsJson`,
 * only the chunk ids listed there (a JSON array, spliced into the request as it is). The list is
 * the caller's to make from the agent's own chunks (lib/retrieval/id-scope.ts).
 */
export interface AgentScope {
  agentId: number;
  idsJson?: string;
}

/**
 * Every vector Chroma holds of some documents of one agent, with embedding and metadata (the
 * agent filter with the documents'; a document's vectors when the app has no copy of them).
 */
export async function documentVectors(collection: Collection, agentId: number, documentIds: number[]): Promise<StoredVector[]> {
  if (documentIds.length === 0) return [];
  return storedVectors(
    await live(collection).get({
      where: { $and: [{ agent_id: agentId }, { document_id: { $in: documentIds } }] },
      include: ["embeddings", "metadatas"],
    }),
  );
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
 * The nearest `nResults` chunks in `scope` for each query vector, in ranking order (closestFirst):
 * ids and distances only (the id names document and chunk; the text is read from SQLite for the
 * few that are shown). One more is read than asked for: when it ties with the last, the read is
 * widened until the tie ends, so the ones kept are the first of the tied chunks in that order,
 * not those the index happened to reach.
 */
export async function nearestChunks(
  collection: Collection,
  scope: AgentScope,
  queryEmbeddings: number[][],
  nResults: number,
): Promise<RankedChunk[][]> {
  const filter = scope.idsJson === undefined ? { where: byAgent(scope.agentId) } : { idsJson: scope.idsJson };
  let ask = nResults + 1;
  for (;;) {
    const lists = ranked(await asSearch(() => queryDistances(collection, { queryEmbeddings, nResults: ask, ...filter })));
    const open = lists.some((l) => l.length === ask && nResults > 0 && l[ask - 1].score === l[nResults - 1].score);
    if (!open || ask > nResults + MAX_TIE_READ) return lists.map((l) => l.sort(closestFirst).slice(0, nResults));
    ask = nResults + 4 * (ask - nResults);
  }
}

/**
 * One query that nobody waits for as a search (the health check's probe): it does not count as a
 * search, so a monitor polling /api/health does not make uploads give way. It has no `where`: Chroma
 * resolves a filter with a pass over the whole collection's metadata before it searches (about a
 * second at 1,000,000 chunks), where the graph search alone takes milliseconds. What it returns
 * is dropped.
 */
export async function probeQuery(collection: Collection, queryEmbedding: number[]): Promise<void> {
  await queryDistances(collection, { queryEmbeddings: [queryEmbedding], nResults: 1, unscoped: true });
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
 * Chroma returned them (unparsed, so an id of any form counts): by the agent filter, or by the
 * scope's list of ids when it has one.
 */
export async function nearestIds(
  collection: Collection,
  agent: number | AgentScope,
  queryEmbeddings: number[][],
  nResults: number,
): Promise<{ ids: string[]; distances: (number | null)[] }[]> {
  const scope = typeof agent === "number" ? { agentId: agent } : agent;
  const res =
    scope.idsJson === undefined
      ? await live(collection).query({ queryEmbeddings, nResults, where: byAgent(scope.agentId), include: ["distances"] })
      : await queryDistances(collection, { queryEmbeddings, nResults, idsJson: scope.idsJson });
  return res.ids.map((ids, q) => ({ ids, distances: res.distances[q] ?? [] }));
}

/**
 * Writes vectors of one agent again with the same ids, embeddings and metadata, as agentVectors
 * read them: removed (by their ids and the agent filter), then added, so the index inserts each
 * one afresh. If the add fails after the delete, the audit reports those chunks missing.
 */
export async function rewriteVectors(collection: Collection, agentId: number, vectors: StoredVector[]): Promise<void> {
  if (vectors.length === 0) return;
  await vectorWrite(live(collection), async (c) => {
    await c.delete({ ids: vectors.map((v) => v.id), where: byAgent(agentId) });
    await c.add({ ids: vectors.map((v) => v.id), embeddings: vectors.map((v) => v.embedding), metadatas: vectors.map((v) => v.metadata) });
  });
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
 * How a check of chunks by their own vectors goes about it (lib/index-upkeep/after-restart.ts's
 * full check; left out, as before: the agent filter, one request at a time, no pauses).
 */
export interface OwnVectorCheck {
  /**
   * The agent's chunk ids as its searches send them (lib/retrieval/id-scope.ts), asked for only
   * when a filtered query is needed; null: the agent filter. A list must hold the chunks asked about.
   */
  ids?: () => string | null;
  /** Chroma refused the list (an id it does not hold): the rest goes by the agent filter. */
  refused?: () => void;
  /** Awaited before each Chroma request after the first (the full check gives way to searches there). */
  between?: () => Promise<void>;
  /** How many requests may be in flight now (Chroma answers them side by side; one when left out). */
  streams?: () => number;
  /** Filtered queries' last pace (ms a query), kept across calls so a request is sized from the first. */
  pace?: { msPerQuery?: number };
}

/**
 * Runs `work` on what `next` hands out (undefined: nothing left), as many at a time as `streams`
 * allows when each piece is taken (a stream past it stops; the first goes on), awaiting `between`
 * before each piece but the very first one of `sent` (shared by a call's phases).
 */
async function inStreams<T>(
  streams: () => number,
  sent: { n: number },
  between: () => Promise<void>,
  next: () => T | undefined,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const stream = async (k: number) => {
    for (;;) {
      if (sent.n > 0) await between();
      if (k > 0 && k >= streams()) return;
      const item = next();
      if (item === undefined) return;
      sent.n++;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, streams()) }, (_, k) => stream(k)));
}

/**
 * Of the given vectors, the ids that a top-SELF_QUERY_RESULTS query by the vector itself, over
 * the whole collection, returns. Unfiltered: Chroma's agent filter costs it about a second a query
 * for a small agent in a collection of 1,000,000 vectors (it walks the graph looking for the few
 * it may return), where this takes milliseconds. Only the ids asked about are answered; every
 * other id in the results is dropped here, so nothing of another agent leaves this function.
 */
export async function ownVectorsReturned(
  collection: Collection,
  vectors: StoredVector[],
  { between = async () => {}, streams = () => 1 }: Pick<OwnVectorCheck, "between" | "streams"> = {},
  sent = { n: 0 },
): Promise<Set<string>> {
  const returned = new Set<string>();
  let i = 0;
  await inStreams(
    streams,
    sent,
    between,
    () => {
      if (i >= vectors.length) return undefined;
      i += SELF_QUERY_BATCH;
      return vectors.slice(i - SELF_QUERY_BATCH, i);
    },
    async (batch) => {
      const res = await live(collection).query({
        queryEmbeddings: batch.map((v) => v.embedding),
        nResults: SELF_QUERY_RESULTS,
        include: ["distances"],
      });
      batch.forEach((v, q) => res.ids[q]?.includes(v.id) && returned.add(v.id));
    },
  );
  return returned;
}

/**
 * The given vectors of one agent, each queried with itself: the ids the index cannot return to a
 * search of their agent. A chunk that the unfiltered query returns is reachable (the filtered
 * search walks the same graph and stops later: lib/index-upkeep/audit.test.ts checks the two
 * agree); the others (none to a fifth of them, as the graph goes) are asked again filtered to the
 * agent, which decides, in requests sized to take about FILTERED_REQUEST_MS each. Filtered by the
 * agent's ids when `check.ids` gives them: the same search of the graph without Chroma's pass over
 * every record's metadata that a `where` costs (about a second a request at 1,000,000 vectors).
 */
export async function unreachableAmong(
  collection: Collection,
  agentId: number,
  vectors: StoredVector[],
  check: OwnVectorCheck = {},
): Promise<Set<string>> {
  const between = check.between ?? (async () => {});
  const sent = { n: 0 };
  const returned = await ownVectorsReturned(collection, vectors, check, sent);
  const unsure = vectors.filter((v) => !returned.has(v.id));
  const lost = new Set<string>();
  if (unsure.length === 0) return lost;
  const pace = check.pace ?? {};
  let idsJson = check.ids?.() ?? undefined;
  const size = () => Math.max(1, Math.min(SELF_QUERY_BATCH, Math.floor(FILTERED_REQUEST_MS / (pace.msPerQuery ?? FILTERED_REQUEST_MS))));
  // Batches asked by a list Chroma refused go again by the filter, before the rest.
  const again: StoredVector[][] = [];
  let i = 0;
  await inStreams(
    check.streams ?? (() => 1),
    sent,
    between,
    () => {
      if (again.length > 0 || i >= unsure.length) return again.shift();
      const n = size();
      i += n;
      return unsure.slice(i - n, i);
    },
    async (batch) => {
      const started = performance.now();
      const byIds = idsJson;
      let results: { ids: string[]; distances: (number | null)[] }[];
      try {
        results = await nearestIds(
          collection,
          byIds === undefined ? agentId : { agentId, idsJson: byIds },
          batch.map((v) => v.embedding),
          SELF_QUERY_RESULTS,
        );
      } catch (err) {
        if (byIds === undefined || isVectorStoreUnavailable(err)) throw err;
        // An id Chroma does not hold: this batch and the rest by the agent filter, paced afresh.
        if (idsJson !== undefined) check.refused?.();
        idsJson = undefined;
        pace.msPerQuery = undefined;
        again.push(batch);
        return;
      }
      for (const id of notReturned(
        batch.map((v) => v.id),
        results,
        SELF_QUERY_RESULTS,
      ))
        lost.add(id);
      pace.msPerQuery = Math.max(1, performance.now() - started) / batch.length;
    },
  );
  return lost;
}
