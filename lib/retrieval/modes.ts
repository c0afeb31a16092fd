import "server-only";
import { chunkKey } from "../db/chunks";
import { AgentView, type AgentRef } from "../db/agent-view";
import { keywordMatchesOver } from "../db/keyword-search";
import type { RetrievalMode } from "../validations/agent";
import { agentVectors, cosineDistance, type RankedChunk } from "../vector-store/chunks";
import { chunkId } from "../vector-store/client";
import { ftsTerms, keywordRanking } from "./keyword";
import type { ModePlaces, PlacedChunk, ReadContext } from "./read-types";

export type { RankedResult } from "./read-types";

/**
 * Keyword and hybrid retrieval, the ranking stage of the read path (lib/retrieval/read-path.ts)
 * in those modes. `keyword` ranks the agent's chunks by bm25 (lib/retrieval/keyword.ts); `hybrid`
 * fuses the vector and keyword rankings by reciprocal rank fusion. Either way `score` keeps its
 * meaning, the chunk's raw vector distance (read from its stored vector when the vector ranking
 * did not reach it), so the no-match cut and every client that reads `score` work as in vector
 * mode; each result also says where it stood in each list.
 */

/** The constant of reciprocal rank fusion: a result's share is 1 / (RRF_K + its rank) in each list. */
export const RRF_K = 60;

type Ref = Pick<RankedChunk, "document_id" | "chunk_index">;
const keyOf = (r: Ref) => chunkKey(r.document_id, r.chunk_index);

/** How deep each list is read: enough for fusion to see what either side ranks near the top. */
export const listDepth = (topK: number) => Math.max(2 * topK, 20);

/** How many admitted candidates a search in `mode` reads: its top_k, or both lists' depth. */
export const readDepth = (mode: RetrievalMode, topK: number) => (mode === "vector" ? topK : listDepth(topK));

/** Hybrid order: the larger fused share first; ties by the vector rank, then the keyword rank. */
function fuse(vector: Map<string, number>, keyword: Map<string, number>): string[] {
  const share = (rank: number | undefined) => (rank === undefined ? 0 : 1 / (RRF_K + rank));
  const keys = [...new Set([...vector.keys(), ...keyword.keys()])];
  const worst = Number.MAX_SAFE_INTEGER;
  return keys
    .map((k) => ({ k, s: share(vector.get(k)) + share(keyword.get(k)) }))
    .sort(
      (a, b) =>
        b.s - a.s || (vector.get(a.k) ?? worst) - (vector.get(b.k) ?? worst) || (keyword.get(a.k) ?? worst) - (keyword.get(b.k) ?? worst),
    )
    .map((x) => x.k);
}

/**
 * Each query's first top_k in keyword or hybrid order, from its admitted vector candidates (read
 * listDepth deep) and the agent's keyword matches, with each chunk's places in both lists.
 */
export async function fusedWithKeywords(
  read: ReadContext,
  kept: RankedChunk[][],
  mode: Exclude<RetrievalMode, "vector">,
  topK: number,
): Promise<PlacedChunk[][]> {
  const depth = listDepth(topK);
  return Promise.all(
    read.queries.map(async (query, q) => {
      const head = kept[q].slice(0, depth);
      const vectorRank = new Map(head.map((h, i) => [keyOf(h), i + 1]));
      const distance = new Map(head.map((h) => [keyOf(h), h.score]));
      const matches = keywordRanking(read.agent, read.model, query, mode === "keyword" ? topK : depth);
      const keywordRank = new Map(matches.map((m, i) => [keyOf(m), i + 1]));
      const bm25 = new Map(matches.map((m) => [keyOf(m), m.bm25]));
      const refs = new Map<string, Ref>(
        [...head, ...matches].map((r) => [keyOf(r), { document_id: r.document_id, chunk_index: r.chunk_index }]),
      );
      const order = (mode === "keyword" ? matches.map(keyOf) : fuse(vectorRank, keywordRank)).slice(0, topK);

      // A keyword match the vector ranking did not reach gets its distance from its stored vector.
      const unread = order.filter((k) => !distance.has(k)).map((k) => refs.get(k)!);
      for (const v of await agentVectors(
        read.collection,
        read.agent.id,
        unread.map((r) => chunkId(r.document_id, r.chunk_index)),
      )) {
        distance.set(chunkKey(v.document_id, v.chunk_index), cosineDistance(read.vectors[q], v.embedding));
      }
      return order.flatMap((k, i): PlacedChunk[] => {
        const score = distance.get(k);
        if (score === undefined) return [];
        const places: ModePlaces = {
          vector_rank: vectorRank.get(k) ?? null,
          keyword_rank: keywordRank.get(k) ?? null,
          bm25: bm25.get(k) ?? null,
          ...(mode === "hybrid" ? { fused_rank: i + 1 } : {}),
        };
        return [{ ...refs.get(k)!, score, places }];
      });
    }),
  );
}

/** Keyword matches read for a diagnosis: far past any top_k a person inspects. */
const KEYWORD_DEPTH = 1_000;
/**
 * Past this many matching chunks, an inspection in vector mode does not rank the keyword
 * matches: ranking them scores every match, 2 to 4 microseconds each (35 to 120 ms for the
 * 20,000 to 33,000 matches of a bench question of 4 to 7 words in an agent of 33,000 chunks,
 * about 250 ms for 261,000 of 333,000), more than the search itself, for a figure the vector
 * results do not depend on. Below it the place costs at most about 15 ms, and counting up to it
 * 2 to 3 ms, so that an inspection stays within two searches at every size.
 */
export const KEYWORD_PLACE_MAX_MATCHES = 5_000;
let keywordPlaceCap = KEYWORD_PLACE_MAX_MATCHES;
/** Tests: the cap of matching chunks past which vector mode does not rank them (undefined: KEYWORD_PLACE_MAX_MATCHES). */
export function useKeywordPlaceCap(cap: number | undefined): void {
  keywordPlaceCap = cap ?? KEYWORD_PLACE_MAX_MATCHES;
}

/**
 * The expected document in the keyword list and in the fused one. The fused rank counts the
 * chunks whose share beats its best: exact within the vector results read and the keyword
 * matches, which is where any chunk with a larger share is.
 */
export function keywordPlace(
  agent: AgentRef,
  model: string,
  query: string,
  documentId: number,
  head: RankedChunk[],
  vectorRank: number | null,
  mode: RetrievalMode = "hybrid",
): { rank: number | null; bm25: number | null; fused_rank: number | null; not_ranked?: string } {
  const view = AgentView.of(agent);
  const terms = ftsTerms(query);
  if (mode === "vector" && terms && !view.draft && !view.scope && keywordMatchesOver(view.id, terms, keywordPlaceCap))
    return {
      rank: null,
      bm25: null,
      fused_rank: null,
      not_ranked: `the query's words match more than ${keywordPlaceCap.toLocaleString("en")} chunks, so in vector mode they are not ranked (the keyword and hybrid modes rank them)`,
    };
  const matches = keywordRanking(agent, model, query, KEYWORD_DEPTH);
  const at = matches.findIndex((m) => m.document_id === documentId);
  const keywordRank = new Map(matches.map((m, i) => [chunkKey(m.document_id, m.chunk_index), i + 1]));
  const vectorRanks = new Map(head.map((h, i) => [chunkKey(h.document_id, h.chunk_index), i + 1]));
  // The same order as the hybrid results, ties included.
  const fused = fuse(vectorRanks, keywordRank).findIndex((k) => k.startsWith(`${documentId}#`));
  const found = fused >= 0 || vectorRank !== null;
  return { rank: at < 0 ? null : at + 1, bm25: at < 0 ? null : matches[at].bm25, fused_rank: found && fused >= 0 ? fused + 1 : null };
}
