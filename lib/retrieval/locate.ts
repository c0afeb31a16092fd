import "server-only";
import type { Collection } from "../vector-store/client";
import { chunkId } from "../vector-store/client";
import { agentVectors, closestFirst, cosineDistance, type RankedChunk, type StoredVector } from "../vector-store/chunks";
import { chunkIndexes } from "../db/chunks";
import { AgentView, type AgentRef } from "../db/agent-view";
import { exactPlaces } from "./exact";
import { compactPlaces } from "./compact";
import { CANDIDATE_DEPTH, retryRace, servedCandidates, servedTable, visibleOnly } from "./read-path";

/**
 * Where the chunks of looked-for documents rank (the inspector's diagnosis, evaluation runs):
 * the read path's candidates and visibility (lib/retrieval/read-path.ts), read only as deep as
 * each looked-for document needs.
 */

/** Where one chunk of a looked-for document stands for one query. */
export interface LocatedChunk {
  document_id: number;
  chunk_index: number;
  /** Exact distance from the query to this chunk, measured directly (not through the index). */
  distance: number;
  /**
   * 1 + the ready chunks of the agent closer to the query: the top_k that retrieves it. Exact
   * for each document's best chunk; null for a chunk farther than the ranking had to be read.
   */
  rank: number | null;
  /** Closer than chunks the index returned, yet not among them: the index cannot return it. */
  unreachable: boolean;
}

export interface Location {
  /** The ready chunks closest to the query, in order: at least `window` when the agent has them. */
  head: RankedChunk[];
  /** Every chunk of the looked-for documents, closest first. */
  chunks: LocatedChunk[];
  /** How far down the index was read: ranks up to here are exact. */
  depth: number;
}

/** The distance of the farthest of the documents' closest chunks: how deep the ranking must be read. */
function deepestBest(chunks: RankedChunk[]): number {
  const best = new Map<number, number>();
  for (const c of chunks) if (!best.has(c.document_id)) best.set(c.document_id, c.score); // closest first
  return best.size === 0 ? Number.NEGATIVE_INFINITY : Math.max(...best.values());
}

/**
 * Where the chunks of given documents rank for each query, without ranking every chunk of the
 * agent: their exact distances are computed from their stored vectors, and the ranking is
 * read only as deep as each document's closest chunk needs (from `window`, four times deeper
 * each round). So each document's best rank is exact and unlimited, and a chunk the index
 * cannot reach still gets its distance.
 * `targets[q]` are ready document ids of this agent for query q.
 */
export async function locate(
  ref: AgentRef,
  collection: Collection,
  vectors: number[][],
  targets: number[][],
  window: number,
): Promise<Location[]> {
  const agent = AgentView.of(ref);
  // Ranked exactly: one scan gives the head and every looked-for chunk's rank, with no k limit.
  const model = String(collection.metadata?.embedding_model ?? "");
  const ranked = await servedTable({ agent, collection, model });
  if (ranked) {
    // Past the exact limit, from the compact table: the head and each document's best chunk
    // ranked exactly, for every query of the batch from one pass of the kernel.
    const places =
      ranked.table?.precision === "i8"
        ? await compactPlaces(ranked, model, vectors, Math.max(1, window), targets)
        : (await exactPlaces(ranked, model, vectors, Math.max(1, window), targets)).map((p) => ({ ...p, depth: ranked.chunks }));
    return places.map((p) => ({
      head: p.head,
      depth: p.depth,
      chunks: p.chunks.map((c) => ({
        document_id: c.document_id,
        chunk_index: c.chunk_index,
        distance: c.score,
        rank: c.rank,
        unreachable: false,
      })),
    }));
  }
  // Every looked-for chunk's stored vector, read once for all the queries, and each query's
  // exact distance to it computed here: no walk of the index is involved.
  const wanted = [...new Set(targets.flat())];
  const stored = new Map<number, StoredVector[]>();
  for (const v of await retryRace(() =>
    agentVectors(
      collection,
      agent.id,
      chunkIndexes(wanted).map((c) => chunkId(c.document_id, c.chunk_index)),
    ),
  )) {
    stored.set(v.document_id, [...(stored.get(v.document_id) ?? []), v]);
  }
  const exact: RankedChunk[][] = vectors.map((vector, q) =>
    targets[q]
      .flatMap((id) => stored.get(id) ?? [])
      .map((v) => ({ document_id: v.document_id, chunk_index: v.chunk_index, score: cosineDistance(vector, v.embedding) }))
      .sort(closestFirst),
  );

  const out: Location[] = vectors.map(() => ({ head: [], chunks: [], depth: 0 }));
  let pending = vectors.map((_, q) => q);
  // Chroma is asked CANDIDATE_DEPTH deep whatever the window (servedCandidates): the first read
  // keeps all it returns, so a document within that depth costs no second query (a second
  // filtered query is a second of Chroma's time past 1,000,000 chunks: docs/performance.md).
  let want = Math.max(1, window, CANDIDATE_DEPTH);
  const total = agent.readyChunkCount();
  while (pending.length > 0) {
    const target = { agent, collection, model, vectors: pending.map((q) => vectors[q]) };
    const { kept, raw, asked } = await visibleOnly(target, want, servedCandidates(target));
    const again: number[] = [];
    pending.forEach((q, i) => {
      const last = raw[i].at(-1)?.score ?? Number.POSITIVE_INFINITY;
      const exhausted = raw[i].length < asked || want >= total;
      if (!exhausted && last < deepestBest(exact[q])) {
        again.push(q); // a looked-for document's closest chunk lies deeper than this read
        return;
      }
      const head = kept[i];
      const returned = new Map(raw[i].map((h) => [chunkId(h.document_id, h.chunk_index), h.score]));
      out[q] = {
        head,
        depth: exhausted ? total : head.length,
        chunks: exact[q]
          .map((c) => {
            const id = chunkId(c.document_id, c.chunk_index);
            // Where the index returned the chunk, its own figure is shown, as in the results.
            const distance = returned.get(id) ?? c.score;
            const within = exhausted || distance <= last;
            // Ahead of it: the chunks before it in ranking order (closer, or as close and first by document and chunk).
            const here = { document_id: c.document_id, chunk_index: c.chunk_index, score: distance };
            const closer = head.filter((h) => closestFirst(h, here) < 0).length;
            return {
              document_id: c.document_id,
              chunk_index: c.chunk_index,
              distance,
              rank: within ? 1 + closer : null,
              unreachable: within && !returned.has(id) && distance < last - 1e-6,
            };
          })
          .sort((a, b) => a.distance - b.distance || a.document_id - b.document_id || a.chunk_index - b.chunk_index),
      };
    });
    pending = again;
    want *= 4;
  }
  return out;
}
