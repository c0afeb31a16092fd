import "server-only";
import { chunkVectorsOf } from "../db/chunk-vectors";
import { chunkKey } from "../db/chunks";
import { closestFirst, type RankedChunk } from "../vector-store/chunks";
import { quantizeQuery, ROWS_PER_CALL, unitQuery, VectorTable } from "./exact-kernel";
import { chunksPerRead, nthSmallest, scan, type AgentVectors } from "./exact";

/**
 * The exact nearest chunks of an agent past the exact limit, from a compact table: its rows held
 * as bytes (lib/retrieval/exact-kernel.ts), a quarter of the memory of float32, so an agent of
 * 333,000 chunks takes 350 MB instead of 1.4 GB and the inspector's check does not read it from
 * SQLite on every inspection (docs/performance.md, '1,000,000 chunks').
 *
 * Each row's distance from the bytes is within a bound of its exact distance (errorBound), so
 * with U the n-th smallest of (approximate + bound), every row whose exact distance can be at most
 * U is one whose approximate distance minus its bound is at most U; any other row is farther than
 * n rows for certain. Those candidates are scored again exactly from the stored float32 copies,
 * and their first n in ranking order are the exact first n, ties included.
 */
export async function compactNearest(agent: AgentVectors, model: string, vector: number[], n: number): Promise<RankedChunk[]> {
  const table = agent.table;
  if (!table || table.precision !== "i8") throw new Error("compactNearest needs a compact table");
  const query = unitQuery(vector);
  const s = await scan(agent, model, [vector]);
  const d = s.dist[0];
  const queryError = quantizeQuery(query).error;
  const upper = new Float32Array(s.rows);
  let live = 0;
  for (let r = 0; r < s.rows; r++) {
    const alive = d[r] !== Number.POSITIVE_INFINITY;
    upper[r] = alive ? d[r] + table.errorBound(r, queryError) : Number.POSITIVE_INFINITY;
    live += alive ? 1 : 0;
  }
  if (live === 0 || n <= 0) return [];
  const cut = n >= live ? Number.POSITIVE_INFINITY : nthSmallest(upper, n);
  const candidates: { document_id: number; chunk_index: number }[] = [];
  for (let r = 0; r < s.rows; r++) {
    if (d[r] !== Number.POSITIVE_INFINITY && d[r] - table.errorBound(r, queryError) <= cut)
      candidates.push({ document_id: s.documentOf[r], chunk_index: s.chunkOf[r] });
  }
  return exactlyRanked(candidates, model, agent.dimension, query).slice(0, n);
}

/**
 * The chunks scored exactly from their stored copies, in ranking order, a page at a time so that
 * memory stays flat however many there are; one whose copy is gone (removed meanwhile) is left out.
 */
function exactlyRanked(
  chunks: { document_id: number; chunk_index: number }[],
  model: string,
  dimension: number,
  query: Float32Array,
): RankedChunk[] {
  const out: RankedChunk[] = [];
  const perPage = chunksPerRead(); // their copies and a table of them: about 16 MB each at 1,024 dimensions
  const pool = new VectorTable(dimension, Math.max(1, Math.min(perPage, chunks.length)));
  const dist = new Float32Array(pool.capacity);
  for (let at = 0; at < chunks.length; at += perPage) {
    const page = chunks.slice(at, at + perPage);
    const vectors = chunkVectorsOf(page, model);
    pool.clear();
    for (const c of page) {
      const v = vectors.get(chunkKey(c.document_id, c.chunk_index));
      if (v) pool.append(c.document_id, c.chunk_index, 1, v);
    }
    for (let from = 0; from < pool.rows; from += ROWS_PER_CALL)
      pool.score([query], from, Math.min(ROWS_PER_CALL, pool.rows - from), [dist], from);
    for (let r = 0; r < pool.rows; r++) out.push({ document_id: pool.documentOf[r], chunk_index: pool.chunkOf[r], score: dist[r] });
  }
  return out.sort(closestFirst);
}

/** Past this many rows within their bound of a looked-for chunk's distance, ranking them is left to a full scan. */
const MAX_UNSURE = 100_000;

/**
 * The exact rank of each given chunk of the agent (1 + the chunks before it in ranking order, by
 * chunkKey), from the compact table: a row whose distance plus its bound is below the chunk's is
 * ahead of it, one whose distance minus its bound is above is behind, and the rows in between are
 * scored exactly from their copies. Null when more than MAX_UNSURE rows lie in between.
 */
export async function compactRanks(
  agent: AgentVectors,
  model: string,
  vector: number[],
  chunks: { document_id: number; chunk_index: number }[],
): Promise<Map<string, number> | null> {
  const table = agent.table;
  if (!table || table.precision !== "i8") throw new Error("compactRanks needs a compact table");
  const query = unitQuery(vector);
  const targets = exactlyRanked(chunks, model, agent.dimension, query);
  const ranks = new Map<string, number>();
  if (targets.length === 0) return ranks;
  const s = await scan(agent, model, [vector]);
  const d = s.dist[0];
  const queryError = quantizeQuery(query).error;
  const ahead = new Array<number>(targets.length).fill(0);
  // Rows in between for some chunk, with the highest distance they can have (a row surely ahead of
  // another of the chunks was counted for that one already).
  const unsure = new Map<string, { document_id: number; chunk_index: number; highest: number }>();
  for (let r = 0; r < s.rows; r++) {
    if (d[r] === Number.POSITIVE_INFINITY) continue;
    const bound = table.errorBound(r, queryError);
    let inBetween = false;
    for (const [j, t] of targets.entries()) {
      if (d[r] + bound < t.score) ahead[j]++;
      else if (d[r] - bound <= t.score) inBetween = true;
    }
    if (inBetween)
      unsure.set(chunkKey(s.documentOf[r], s.chunkOf[r]), {
        document_id: s.documentOf[r],
        chunk_index: s.chunkOf[r],
        highest: d[r] + bound,
      });
    if (unsure.size > MAX_UNSURE) return null;
  }
  const scored = exactlyRanked([...unsure.values()], model, agent.dimension, query);
  for (const [j, t] of targets.entries()) {
    let before = 0;
    for (const c of scored)
      if (!(unsure.get(chunkKey(c.document_id, c.chunk_index))!.highest < t.score) && closestFirst(c, t) < 0) before++;
    ranks.set(chunkKey(t.document_id, t.chunk_index), ahead[j] + before + 1);
  }
  return ranks;
}
