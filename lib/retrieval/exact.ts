import "server-only";
import { env } from "../env.mjs";
import { agentChunkCount, readySignature } from "../db/documents";
import { readVectorRuns, readyVectorCoverage, type VectorRun } from "../db/chunk-vectors";
import type { RankedChunk } from "../vector-store/chunks";

/**
 * Exact ranking: every ready chunk of an agent scored against the query, from the copy of the
 * vectors in SQLite (lib/db/chunk-vectors.ts), so the nearest chunks are returned whatever
 * Chroma's approximate index reaches. Agents of up to EXACT_MAX_CHUNKS chunks are ranked this
 * way (`npm run bench:exact`: at 10,000 chunks a scan takes 16 ms against Chroma's 44, at 100,000
 * 144 against 310, while Chroma's top 10 held 65% and 27% of the exact one on a corpus of one
 * vocabulary). The vectors of recently searched agents are held in memory, unit length, up to
 * EXACT_MEMORY_MB in all; an agent past that is read from SQLite a page at a time on each search,
 * so memory stays flat however large the corpus grows.
 */

/** Vectors of one run of chunks, scaled to unit length: a cosine distance is 1 - their dot product. */
interface Block {
  document_id: number;
  first_chunk: number;
  count: number;
  data: Float32Array;
}

interface AgentVectors {
  /** readySignature when loaded: the ready set it holds. */
  signature: string;
  /** null: complete but too large to hold, read from SQLite on each search. */
  blocks: Block[] | null;
  documents: number[];
  /** Chunks of the ready documents, all with a vector. */
  chunks: number;
  dimension: number;
  bytes: number;
  usedAt: number;
}

const holder = globalThis as unknown as {
  __kbExact?: {
    agents: Map<string, AgentVectors>;
    loading: Map<string, Promise<AgentVectors | null>>;
    limits: { chunks?: number; memoryMb?: number };
    incomplete: Set<number>;
  };
};
const state = () => (holder.__kbExact ??= { agents: new Map(), loading: new Map(), limits: {} as { chunks?: number; memoryMb?: number }, incomplete: new Set() });

/** The most chunks an agent may have to be ranked exactly (0: never). */
export const exactLimit = (): number => state().limits.chunks ?? env().EXACT_MAX_CHUNKS;
const memoryBudget = (): number => (state().limits.memoryMb ?? env().EXACT_MEMORY_MB) * 1024 * 1024;

/** Tests set the limits of this process (and drop what is held); undefined goes back to the configuration. */
export function useExactLimits(limits: { chunks?: number; memoryMb?: number }): void {
  state().limits = limits;
  state().agents.clear();
}

/** Bytes of vectors held in memory, all agents (health). */
export const exactBytesHeld = (): number => [...state().agents.values()].reduce((s, a) => s + a.bytes, 0);

/** Agents found with ready documents whose vectors have no copy yet (start-up copies them, lib/ingest/exact-copies.ts). */
export const agentsAwaitingCopies = (): number[] => [...state().incomplete];

/** Rows scored between two yields to the event loop (~10 ms of work at 1,024 dimensions). */
const ROWS_PER_TURN = 8_192;
/** Documents read from SQLite per step while an agent's vectors are loaded or streamed. */
const DOCUMENTS_PER_READ = 200;
const turn = () => new Promise<void>((r) => setImmediate(r));

function unitBlock(run: VectorRun): Block {
  const { dimension: dim, vectors } = run;
  const data = new Float32Array(vectors.length);
  for (let r = 0; r < run.count; r++) {
    let sq = 0;
    for (let i = r * dim; i < (r + 1) * dim; i++) sq += vectors[i] * vectors[i];
    const scale = sq === 0 ? 0 : 1 / Math.sqrt(sq);
    for (let i = r * dim; i < (r + 1) * dim; i++) data[i] = vectors[i] * scale;
  }
  return { document_id: run.document_id, first_chunk: run.first_chunk, count: run.count, data };
}

async function* blocksOf(documents: number[], model: string): AsyncGenerator<Block[]> {
  for (let i = 0; i < documents.length; i += DOCUMENTS_PER_READ) {
    yield readVectorRuns(documents.slice(i, i + DOCUMENTS_PER_READ), model).map(unitBlock);
    await turn();
  }
}

function evictFor(bytes: number, keep: string): void {
  const budget = memoryBudget();
  const held = [...state().agents.entries()].filter(([, a]) => a.blocks !== null);
  let total = held.reduce((s, [, a]) => s + a.bytes, 0) + bytes;
  for (const [key, a] of held.sort((x, y) => x[1].usedAt - y[1].usedAt)) {
    if (total <= budget) return;
    if (key === keep) continue;
    state().agents.delete(key);
    total -= a.bytes;
  }
}

/** The agent's ready documents as stored copies, streamed (blocks null); null while a copy is missing. */
function streamed(agentId: number, model: string, signature = readySignature(agentId, model)): AgentVectors | null {
  const coverage = readyVectorCoverage(agentId, model);
  if (coverage.some((d) => d.stored !== d.chunk_count)) return null;
  const documents = coverage.map((d) => d.document_id);
  const dimension = documents.length > 0 ? (readVectorRuns([documents[0]], model)[0]?.dimension ?? 0) : 0;
  const chunks = coverage.reduce((s, d) => s + d.chunk_count, 0);
  return { signature, blocks: null, documents, chunks, dimension, bytes: 0, usedAt: Date.now() };
}

async function load(agentId: number, model: string, signature: string, before: AgentVectors | undefined): Promise<AgentVectors | null> {
  const agent = streamed(agentId, model, signature);
  if (!agent) {
    state().incomplete.add(agentId);
    return null;
  }
  state().incomplete.delete(agentId);
  const bytes = agent.chunks * agent.dimension * 4;
  if (bytes > memoryBudget()) return agent;
  const key = `${agentId}|${model}`;
  evictFor(bytes, key);
  // Documents still ready keep their loaded vectors; only the new ones are read.
  const kept = new Set(agent.documents);
  const blocks = (before?.blocks ?? []).filter((b) => kept.has(b.document_id));
  const had = new Set(blocks.map((b) => b.document_id));
  for await (const page of blocksOf(agent.documents.filter((id) => !had.has(id)), model)) blocks.push(...page);
  return { ...agent, blocks, bytes };
}

/**
 * The agent's vectors for exact ranking, loaded or brought up to date with its ready documents;
 * null when the agent is not ranked exactly (larger than the limit, or a ready document whose
 * vectors have no copy yet).
 */
export async function exactVectors(agentId: number, model: string, opts: { anySize?: boolean } = {}): Promise<AgentVectors | null> {
  const limit = exactLimit();
  if (limit <= 0 || agentChunkCount(agentId) > limit) {
    // The ranking a diagnosis compares with: read from SQLite as it goes, never held.
    return opts.anySize ? streamed(agentId, model) : null;
  }
  const key = `${agentId}|${model}`;
  for (;;) {
    const signature = readySignature(agentId, model);
    const held = state().agents.get(key);
    if (held?.signature === signature) {
      held.usedAt = Date.now();
      return held;
    }
    let loading = state().loading.get(key);
    if (!loading) {
      loading = load(agentId, model, signature, held).finally(() => state().loading.delete(key));
      state().loading.set(key, loading);
      const loaded = await loading;
      if (loaded) state().agents.set(key, loaded);
      else state().agents.delete(key);
      return loaded;
    }
    await loading; // another search is loading it: look again once it is done
  }
}

/** Query vectors as Chroma receives them (float32), scaled to unit length. */
function unitQueries(vectors: number[][]): Float32Array[] {
  return vectors.map((v) => {
    const q = Float32Array.from(v);
    let sq = 0;
    for (let i = 0; i < q.length; i++) sq += q[i] * q[i];
    const scale = sq === 0 ? 0 : 1 / Math.sqrt(sq);
    for (let i = 0; i < q.length; i++) q[i] *= scale;
    return q;
  });
}

/** The n-th smallest of xs (quickselect on a copy). */
function nthSmallest(xs: Float32Array, n: number): number {
  const a = Float32Array.from(xs);
  let lo = 0;
  let hi = a.length - 1;
  const k = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) [a[i], a[j]] = [a[j], a[i]], i++, j--;
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}

/** Every ready chunk's distance to each query, in the order the scan met them. */
interface Scan {
  rows: number;
  documentOf: Int32Array;
  chunkOf: Int32Array;
  /** Per query: distances in float32, as Chroma gives its own (it also sums in float32, so the two differ in the seventh digit at most). */
  dist: Float32Array[];
}

/** Scores every ready chunk against each query, in turns so that other requests are served during a long scan. */
async function scan(agent: AgentVectors, model: string, vectors: number[][]): Promise<Scan> {
  const queries = unitQueries(vectors);
  const dim = agent.dimension;
  const total = agent.chunks;
  const out: Scan = { rows: 0, documentOf: new Int32Array(total), chunkOf: new Int32Array(total), dist: queries.map(() => new Float32Array(total)) };
  let sinceTurn = 0;
  const score = async (blocks: Block[]) => {
    for (const b of blocks) {
      for (let r = 0; r < b.count && out.rows < total; r++, out.rows++) {
        const o = r * dim;
        out.documentOf[out.rows] = b.document_id;
        out.chunkOf[out.rows] = b.first_chunk + r;
        for (let q = 0; q < queries.length; q++) {
          const v = queries[q];
          let s0 = 0, s1 = 0, s2 = 0, s3 = 0; // four sums: one alone waits on each add's latency
          let i = 0;
          for (; i + 3 < dim; i += 4) {
            s0 += v[i] * b.data[o + i];
            s1 += v[i + 1] * b.data[o + i + 1];
            s2 += v[i + 2] * b.data[o + i + 2];
            s3 += v[i + 3] * b.data[o + i + 3];
          }
          for (; i < dim; i++) s0 += v[i] * b.data[o + i];
          out.dist[q][out.rows] = 1 - (s0 + s1 + s2 + s3);
        }
      }
      sinceTurn += b.count * queries.length;
      if (sinceTurn >= ROWS_PER_TURN) {
        sinceTurn = 0;
        await turn();
      }
    }
  };
  if (agent.blocks) await score(agent.blocks);
  else for await (const page of blocksOf(agent.documents, model)) await score(page);
  return out;
}

const closestFirst = (a: RankedChunk, b: RankedChunk) => a.score - b.score || a.document_id - b.document_id || a.chunk_index - b.chunk_index;

/** The n nearest of one query's scan, in ranking order (distance, then document, then chunk). */
function nearestOf(s: Scan, q: number, n: number): RankedChunk[] {
  const d = s.dist[q].subarray(0, s.rows);
  const bound = n >= s.rows ? Number.POSITIVE_INFINITY : nthSmallest(d, n);
  const hits: RankedChunk[] = [];
  for (let i = 0; i < s.rows; i++) if (d[i] <= bound) hits.push({ document_id: s.documentOf[i], chunk_index: s.chunkOf[i], score: d[i] });
  return hits.sort(closestFirst).slice(0, n);
}

/** The `n` nearest ready chunks per query, exactly, in ranking order. */
export async function exactNearest(agent: AgentVectors, model: string, vectors: number[][], n: number): Promise<RankedChunk[][]> {
  const s = await scan(agent, model, vectors);
  return s.dist.map((_, q) => nearestOf(s, q, n));
}

/**
 * From one scan per query: the `window` nearest, and every chunk of the looked-for documents with
 * its rank (1 + the chunks before it in ranking order), with no k limit.
 */
export async function exactPlaces(
  agent: AgentVectors,
  model: string,
  vectors: number[][],
  window: number,
  targets: number[][],
): Promise<{ head: RankedChunk[]; chunks: (RankedChunk & { rank: number })[] }[]> {
  const s = await scan(agent, model, vectors);
  return s.dist.map((d, q) => {
    const wanted = new Set(targets[q]);
    const found: RankedChunk[] = [];
    for (let i = 0; i < s.rows; i++) if (wanted.has(s.documentOf[i])) found.push({ document_id: s.documentOf[i], chunk_index: s.chunkOf[i], score: d[i] });
    found.sort(closestFirst);
    // Chunks ahead of each looked-for one, counted in one pass: how many are nearer than each.
    const ahead = new Int32Array(found.length);
    for (let i = 0; i < s.rows; i++) {
      const here = { document_id: s.documentOf[i], chunk_index: s.chunkOf[i], score: d[i] };
      let lo = 0;
      let hi = found.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (closestFirst(found[mid], here) <= 0) lo = mid + 1;
        else hi = mid;
      }
      if (lo < found.length) ahead[lo]++; // `here` is ahead of found[lo] and of every one after it
    }
    let before = 0;
    const chunks = found.map((c, j) => ((before += ahead[j]), { ...c, rank: before + 1 }));
    return { head: nearestOf(s, q, window), chunks };
  });
}

/** Loads the vectors of the most recently changed agents after start-up, while the memory budget lasts. */
export async function warmExactVectors(model: string, agentIds: number[]): Promise<void> {
  for (const agentId of agentIds) {
    if (exactBytesHeld() >= memoryBudget()) return;
    await exactVectors(agentId, model);
  }
}
