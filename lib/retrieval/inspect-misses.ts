import "server-only";
import type { Collection } from "../vector-store/client";
import { chunkKey, readyChunks } from "../db/chunks";
import type { AgentRef } from "../db/agent-view";
import type { RankedChunk } from "../vector-store/chunks";
import { AgentView } from "../db/agent-view";
import { compactVectors, exactPlaces, exactVectors } from "./exact";
import { compactRanks } from "./compact";
import { servedTable } from "./read-path";

/**
 * What the inspector checks the vector index's answer against: the exact ranking of every ready
 * chunk (lib/retrieval/exact.ts), so that a chunk nearer than a result but not returned is named.
 */

/** A chunk the exact ranking puts ahead of a result that the vector index did not return. */
export interface IndexMiss {
  document_id: number;
  chunk_index: number;
  filename: string;
  chunk_text: string;
  /** Its exact distance to the query. */
  distance: number;
  /** Its 1-based place in the exact ranking. */
  exact_rank: number;
  /**
   * The first result (1-based) it is nearer than, and that result's distance; null when the index
   * returned fewer than top_k results and this chunk, farther than all of them, should have been one.
   */
  nearer_than: number | null;
  nearer_than_distance: number | null;
}

export interface ExactCheck {
  /** The agent's search ranks every chunk exactly: its results are the exact ranking. */
  ranked_exactly: boolean;
  /** Not ranked exactly, and no exact ranking to check against (vectors not copied yet, or not a cosine index). */
  exact_unavailable: boolean;
  /** The first n of the exact ranking; null when ranked exactly (the results are it) or unavailable. */
  exact: RankedChunk[] | null;
  /**
   * Exact rank of every chunk of the looked-for documents, by chunkKey (empty when `exact` is
   * null); null when the check did not rank them (a compact table's): exactRanksOf gives them.
   */
  ranks: Map<string, number> | null;
}

/** Chroma sums in float32 and the exact scan in float64: the same chunk differs in the seventh digit. */
const FLOAT_SLACK = 1e-6;

/**
 * Ranks the agent's chunks exactly for one query vector, unless its search already does: the first
 * n, and where the chunks of the `targets` documents stand, with no limit.
 */
export async function exactCheck(
  agent: AgentRef,
  collection: Collection,
  model: string,
  vector: number[],
  n: number,
  targets: number[],
): Promise<ExactCheck> {
  const none = { exact: null, ranks: new Map<string, number>() };
  // The exact scan measures cosine distances; any other space's results could not be compared.
  if (collection.metadata?.distance_space !== "cosine") return { ranked_exactly: false, exact_unavailable: true, ...none };
  // Ranked exactly from a table, float32 or compact: the results are the exact ranking.
  if (await servedTable({ agent: AgentView.of(agent), collection, model }))
    return { ranked_exactly: true, exact_unavailable: false, ...none };
  // Served by the index (a compact table loading, or too large for memory): the copy scanned.
  const ranks = await exactRanks(agent, model, vector, n, targets);
  return ranks
    ? { ranked_exactly: false, exact_unavailable: false, ...ranks }
    : { ranked_exactly: false, exact_unavailable: true, ...none };
}

/**
 * The exact rank of each given chunk of the agent, by chunkKey: from its compact table where one
 * is held, else from a scan of the agent's copy; null without a full copy.
 */
export async function exactRanksOf(
  agent: AgentRef,
  model: string,
  vector: number[],
  chunks: { document_id: number; chunk_index: number }[],
): Promise<Map<string, number> | null> {
  const compact = await compactVectors(agent, model);
  const ranks = compact ? await compactRanks(compact, model, vector, chunks) : null;
  if (ranks) return ranks;
  const documents = [...new Set(chunks.map((c) => c.document_id))];
  return (await exactRanks(agent, model, vector, 1, documents))?.ranks ?? null;
}

/**
 * The first n of the exact ranking and the exact rank of every chunk of the `targets` documents,
 * from one scan of the agent's copy read from SQLite as it goes; null without a full copy.
 */
export async function exactRanks(
  agent: AgentRef,
  model: string,
  vector: number[],
  n: number,
  targets: number[],
): Promise<{ exact: RankedChunk[]; ranks: Map<string, number> } | null> {
  const all = await exactVectors(agent, model, { anySize: true });
  if (!all) return null;
  const [place] = await exactPlaces(all, model, [vector], n, [targets]);
  return { exact: place.head, ranks: new Map(place.chunks.map((c) => [chunkKey(c.document_id, c.chunk_index), c.rank])) };
}

export type RankedMiss = Omit<IndexMiss, "filename" | "chunk_text">;

/**
 * Chunks of the exact top k that the served top k lacks although they are nearer than one of its
 * results, or, when it holds fewer than k, farther than all of them.
 */
export function missesAgainst(served: RankedChunk[], exact: RankedChunk[], k: number): RankedMiss[] {
  const shown = served.slice(0, k);
  const returned = new Set(shown.map((r) => chunkKey(r.document_id, r.chunk_index)));
  return exact.slice(0, k).flatMap((c, i): RankedMiss[] => {
    if (returned.has(chunkKey(c.document_id, c.chunk_index))) return [];
    const j = shown.findIndex((r) => c.score < r.score - FLOAT_SLACK);
    // Farther than a full list's results: tied with the last one, the index returned one of equals.
    if (j < 0 && shown.length >= k) return [];
    const than = j < 0 ? { nearer_than: null, nearer_than_distance: null } : { nearer_than: j + 1, nearer_than_distance: shown[j].score };
    return [{ document_id: c.document_id, chunk_index: c.chunk_index, distance: c.score, exact_rank: i + 1, ...than }];
  });
}

/** The misses with their document's name and text; a chunk whose document stopped being ready meanwhile is left out. */
export function withText(agentId: number, misses: RankedMiss[]): IndexMiss[] {
  const rows = readyChunks(agentId, misses);
  return misses.flatMap((m): IndexMiss[] => {
    const row = rows.get(chunkKey(m.document_id, m.chunk_index));
    return row ? [{ ...m, filename: row.filename, chunk_text: row.text }] : [];
  });
}
