import "server-only";
import type { Collection } from "../vector-store/client";
import { isVectorStoreUnavailable } from "../vector-store/client";
import type { RankedChunk } from "../vector-store/chunks";
import { queryAgent } from "./index-candidates";
import { agentChunkCount, hiddenVectorCount } from "../db/documents";
import { chunkKey, readyAmong, readyChunks } from "../db/chunks";
import { AppError } from "../core/errors";
import { exactNearest, exactVectors } from "./exact";

/**
 * The ranking an agent is served, shared by every retrieval mode (lib/retrieval/modes.ts) and by
 * the one retrieval function (lib/retrieval/retrieve.ts): the nearest chunks, exactly or through
 * Chroma, of ready documents only, with their text.
 */

export interface SearchResult {
  chunk_text: string;
  /** Chroma's raw distance in the collection's space: lower is better. */
  score: number;
  document_id: number;
  filename: string;
  chunk_index: number;
}

/**
 * Chroma can fail a query that races a delete (the hit's record is gone by the time it is
 * read); asking again sees the index without it. Unreachable or hung is not retried here.
 */
export async function retryRace<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= 3 || isVectorStoreUnavailable(err) || err instanceof AppError) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}

/**
 * Asks Chroma for `want` results per query among the agent's ready documents. The shared
 * collection also holds vectors no ready document owns (one still indexing, a failed or deleted
 * one awaiting clean-up), so Chroma is asked for that many more, the others are dropped, and in
 * the rare case that still leaves too few (they changed meanwhile) it is asked again for more.
 * Each query's raw answer comes back too: where the index stopped, and whether it ran out.
 */
export async function visibleOnly(
  agentId: number,
  queries: number,
  want: number,
  run: (n: number) => Promise<RankedChunk[][]>,
): Promise<{ kept: RankedChunk[][]; raw: RankedChunk[][]; asked: number }> {
  const none = () => Array.from({ length: queries }, (): RankedChunk[] => []);
  if (queries === 0 || agentChunkCount(agentId) === 0) return { kept: none(), raw: none(), asked: 0 };
  let n = Math.min(want, agentChunkCount(agentId)) + hiddenVectorCount(agentId);
  for (let retries = 0; ; ) {
    const raw = await retryRace(() => run(n));
    // Read after the query: a document removed meanwhile is not shown.
    const visible = readyAmong(agentId, raw.flatMap((hits) => hits.map((h) => h.document_id)));
    const target = Math.min(want, agentChunkCount(agentId));
    const kept = raw.map((hits) => hits.filter((h) => visible.has(h.document_id)));
    if (kept.every((hits) => hits.length >= target)) return { kept, raw, asked: n };
    if (raw.some((hits, q) => hits.length === n && kept[q].length < target)) {
      n *= 2; // crowded out by vectors of documents that are not ready
    } else if (retries++ >= 2) {
      return { kept, raw, asked: n }; // the agent's vectors are incomplete (the audit reports it)
    } else {
      // Chroma answered with fewer than it holds: a removal was running meanwhile. Ask again.
      await new Promise((r) => setTimeout(r, 25 * retries));
    }
  }
}

/**
 * How deep Chroma's list is read for an agent that is not ranked exactly; its distances are exact
 * for what it returns, so the deeper list, sorted, puts nearer chunks it found only past top_k
 * back in front. From `npm run bench:exact`: reading 20-100 deep returned the same top 10 as
 * reading 10 (Chroma searches 100 wide anyway); 200 raised recall@10 at every size measured
 * (docs/performance.md, 'Exact ranking, measured').
 */
export const CANDIDATE_DEPTH = 200;

/**
 * The ranking the agent gets: the `n` nearest of its chunks for each query vector, closest first.
 * Exact where the agent's vectors are copied and it is within EXACT_MAX_CHUNKS
 * (lib/retrieval/exact.ts); otherwise Chroma's filtered query read CANDIDATE_DEPTH deep.
 */
export async function servedNearest(agentId: number, collection: Collection, model: string, vectors: number[][], n: number): Promise<RankedChunk[][]> {
  const exact = collection.metadata?.distance_space === "cosine" ? await exactVectors(agentId, model) : null;
  if (exact) return exactNearest(exact, model, vectors, n);
  return (await queryAgent(collection, agentId, vectors, Math.max(n, CANDIDATE_DEPTH))).map((hits) => hits.slice(0, n));
}

/** Text and document name for ranked chunks; a chunk whose document is gone or not ready is left out. */
export function resultsWithText(agentId: number, ranked: RankedChunk[]): SearchResult[] {
  const rows = readyChunks(agentId, ranked);
  return ranked.flatMap((r): SearchResult[] => {
    const row = rows.get(chunkKey(r.document_id, r.chunk_index));
    return row ? [{ chunk_text: row.text, score: r.score, document_id: r.document_id, filename: row.filename, chunk_index: r.chunk_index }] : [];
  });
}
