import "server-only";
import { chunkVectorsOf } from "../db/chunk-vectors";
import { chunkKey } from "../db/chunks";
import { closestFirst, type RankedChunk } from "../vector-store/chunks";
import { quantizeQuery, ROWS_PER_CALL, unitQuery, VectorTable } from "./exact-kernel";
import { chunksPerRead, scan, type AgentVectors, type Scan } from "./exact";

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
  return (await compactPlaces(agent, model, [vector], n, [[]]))[0].head;
}

/** One query's place in a compact table's exact ranking (compactPlaces). */
export interface CompactPlace {
  /** The first `window` of the exact ranking, in ranking order. */
  head: RankedChunk[];
  /**
   * Every chunk of the looked-for documents with its exact distance, closest first; its rank
   * (1 + the chunks before it in ranking order) for each document's best chunk and for any chunk
   * within the head, null for the others.
   */
  chunks: (RankedChunk & { rank: number | null })[];
  /** How deep the ranking is known: the head, or the deepest best chunk ranked. */
  depth: number;
}

/**
 * For each query, from one pass of the kernel over the compact table for all of them: the exact
 * first `window` and the exact rank of each looked-for document's best chunk (targets[q] are
 * document ids). A row is a candidate for the head when its distance minus its bound is at most U,
 * the window-th smallest distance plus bound; it is ahead of a looked-for chunk for certain when
 * its distance plus its bound is below the chunk's, behind it when its distance minus its bound is
 * above, and in between it is scored exactly. The looked-for documents' own rows are always scored
 * exactly. So the head and the ranks are the exact ones, ties included, whatever the bound lets in.
 */
export async function compactPlaces(
  agent: AgentVectors,
  model: string,
  vectors: number[][],
  window: number,
  targets: number[][],
): Promise<CompactPlace[]> {
  const table = agent.table;
  if (!table || table.precision !== "i8") throw new Error("compactPlaces needs a compact table");
  if (agent.more || agent.mask) throw new Error("compactPlaces ranks an agent's own ready set, not a draft's view");
  const s = await scan(agent, model, vectors);
  const scorer = new ExactScorer(agent, model);
  return vectors.map((vector, q) => placeOne(s, q, unitQuery(vector), Math.max(1, window), targets[q] ?? [], agent, scorer));
}

function placeOne(
  s: Scan,
  q: number,
  query: Float32Array,
  window: number,
  targets: number[],
  agent: AgentVectors,
  scorer: ExactScorer,
): CompactPlace {
  const table = agent.table!;
  const d = s.dist[q];
  const rows = s.rows;
  const errors = table.errors;
  // errorBound(r, qe) = e + qe (1 + e) + FLOAT_SUMS, inlined: the loops below run over every row.
  const qe = quantizeQuery(query).error;
  const slope = 1 + qe;
  const base = table.errorBound(0, qe) - errors[0] * slope; // qe + FLOAT_SUMS
  const bound = (r: number) => errors[r] * slope + base;

  // The looked-for documents' rows, scored exactly, and each document's best chunk.
  const mine = new Uint8Array(rows);
  const wanted = new Set(targets);
  const own: { document_id: number; chunk_index: number }[] = [];
  if (wanted.size > 0)
    for (const [start, count] of table.rangesOf(wanted))
      for (let r = start; r < Math.min(start + count, rows); r++) {
        if (d[r] === Number.POSITIVE_INFINITY) continue;
        mine[r] = 1;
        own.push({ document_id: s.documentOf[r], chunk_index: s.chunkOf[r] });
      }
  const found = scorer.score(own, query);
  const bests: RankedChunk[] = [];
  for (const c of found) if (!bests.some((b) => b.document_id === c.document_id)) bests.push(c); // closest first

  const upper = smallestUpper(d, rows, bound, window);
  const ahead = new Int32Array(bests.length);
  const unsure: { document_id: number; chunk_index: number; lo: number; hi: number }[] = [];
  for (let r = 0; r < rows; r++) {
    const x = d[r];
    if (x === Number.POSITIVE_INFINITY || mine[r]) continue;
    const b = bound(r);
    const lo = x - b;
    const hi = x + b;
    let between = lo <= upper;
    for (let j = 0; j < bests.length; j++) {
      const t = bests[j].score;
      if (hi < t) ahead[j]++;
      else if (lo <= t) between = true;
    }
    if (between) unsure.push({ document_id: s.documentOf[r], chunk_index: s.chunkOf[r], lo, hi });
  }
  const scored = scorer.score(unsure, query);
  const range = new Map(unsure.map((u) => [chunkKey(u.document_id, u.chunk_index), u]));
  const head = [...scored, ...found].sort(closestFirst).slice(0, window);
  const inHead = new Map(head.map((c, i) => [chunkKey(c.document_id, c.chunk_index), i + 1]));
  const bestRank = new Map<string, number>();
  bests.forEach((t, j) => {
    let before = ahead[j];
    for (const c of scored) {
      const u = range.get(chunkKey(c.document_id, c.chunk_index))!;
      // Counted here only where the bound left it in between (else it was counted above, or is behind).
      if (!(u.hi < t.score) && u.lo <= t.score && closestFirst(c, t) < 0) before++;
    }
    for (const c of found) if (closestFirst(c, t) < 0) before++;
    bestRank.set(chunkKey(t.document_id, t.chunk_index), before + 1);
  });
  const chunks = found.map((c) => {
    const key = chunkKey(c.document_id, c.chunk_index);
    return { ...c, rank: bestRank.get(key) ?? inHead.get(key) ?? null };
  });
  return { head, chunks, depth: Math.max(head.length, ...bestRank.values()) };
}

/**
 * The n-th smallest distance plus bound among the live rows (+Infinity when there are n or fewer),
 * with a heap of the n smallest: most rows are dismissed by one comparison with its top.
 */
function smallestUpper(d: Float32Array, rows: number, bound: (r: number) => number, n: number): number {
  const heap = new Float64Array(n); // a max-heap
  let size = 0;
  for (let r = 0; r < rows; r++) {
    if (d[r] === Number.POSITIVE_INFINITY) continue;
    const v = d[r] + bound(r);
    if (size < n) {
      let i = size++;
      heap[i] = v;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (heap[p] >= heap[i]) break;
        [heap[p], heap[i]] = [heap[i], heap[p]];
        i = p;
      }
    } else if (v < heap[0]) {
      heap[0] = v;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const rr = l + 1;
        let m = i;
        if (l < n && heap[l] > heap[m]) m = l;
        if (rr < n && heap[rr] > heap[m]) m = rr;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
  }
  return size < n ? Number.POSITIVE_INFINITY : heap[0];
}

/**
 * The rows the exact re-score scores, shared by every call and grown as needed (up to
 * chunksPerRead rows, 16 MB at 1,024 dimensions): making a WebAssembly memory for each search
 * took most of a search of a small compact table. A re-score runs without a turn of the event
 * loop, so no two calls use it at once.
 */
let shared: { pool: VectorTable; dist: Float32Array } | null = null;
function poolFor(dimension: number, rows: number): { pool: VectorTable; dist: Float32Array } {
  if (!shared || shared.pool.dimension !== dimension || shared.pool.capacity < rows) {
    const pool = new VectorTable(dimension, Math.max(rows, shared?.pool.dimension === dimension ? shared.pool.capacity : 0, 256));
    shared = { pool, dist: new Float32Array(pool.capacity) };
  }
  return shared;
}

/**
 * Scores chunks exactly from their float32 copies: the compact table's float file where it holds
 * them (a read of 4 KB each), else SQLite. One pool of rows for every page and query, so that a
 * batch of queries does not make a WebAssembly memory each.
 */
class ExactScorer {
  constructor(
    private readonly agent: AgentVectors,
    private readonly model: string,
  ) {}

  /** The chunks with their exact distances to `query`, in ranking order; one whose copy is gone (removed meanwhile) is left out. */
  score(chunks: { document_id: number; chunk_index: number }[], query: Float32Array): RankedChunk[] {
    const out: RankedChunk[] = [];
    if (chunks.length === 0) return out;
    const perPage = chunksPerRead();
    const { pool, dist } = poolFor(this.agent.dimension, Math.min(perPage, chunks.length));
    const floats = this.agent.floats;
    for (let at = 0; at < chunks.length; at += perPage) {
      const page = chunks.slice(at, at + perPage);
      pool.clear();
      const fromFile = floats ? floats.read(page, (doc, chunk, v) => pool.append(doc, chunk, 1, v)) : 0;
      if (fromFile < page.length) {
        const have = new Set(Array.from({ length: pool.rows }, (_, r) => chunkKey(pool.documentOf[r], pool.chunkOf[r])));
        const rest = page.filter((c) => !have.has(chunkKey(c.document_id, c.chunk_index)));
        const vectors = chunkVectorsOf(rest, this.model);
        for (const c of rest) {
          const v = vectors.get(chunkKey(c.document_id, c.chunk_index));
          if (v) pool.append(c.document_id, c.chunk_index, 1, v);
        }
      }
      for (let from = 0; from < pool.rows; from += ROWS_PER_CALL)
        pool.score([query], from, Math.min(ROWS_PER_CALL, pool.rows - from), [dist], from);
      for (let r = 0; r < pool.rows; r++) out.push({ document_id: pool.documentOf[r], chunk_index: pool.chunkOf[r], score: dist[r] });
    }
    return out.sort(closestFirst);
  }
}

/**
 * The chunks scored exactly from their stored copies, in ranking order, a page at a time so that
 * memory stays flat however many there are; one whose copy is gone (removed meanwhile) is left out.
 */
function exactlyRanked(
  chunks: { document_id: number; chunk_index: number }[],
  model: string,
  agent: AgentVectors,
  query: Float32Array,
): RankedChunk[] {
  return new ExactScorer(agent, model).score(chunks, query);
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
  const targets = exactlyRanked(chunks, model, agent, query);
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
  const scored = exactlyRanked([...unsure.values()], model, agent, query);
  for (const [j, t] of targets.entries()) {
    let before = 0;
    for (const c of scored)
      if (!(unsure.get(chunkKey(c.document_id, c.chunk_index))!.highest < t.score) && closestFirst(c, t) < 0) before++;
    ranks.set(chunkKey(t.document_id, t.chunk_index), ahead[j] + before + 1);
  }
  return ranks;
}
