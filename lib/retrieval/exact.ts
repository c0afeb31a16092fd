import "server-only";
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { env } from "../env.mjs";
import { agentChunkCount, readySignature } from "../db/documents";
import { AgentView, type AgentRef } from "../db/agent-view";
import { listAgents } from "../db/agents";
import { readVectorRuns, readyVectorCoverage, vectorCoverage, type VectorRun } from "../db/chunk-vectors";
import { asSearch } from "../vector-store/batched-add";
import type { RankedChunk } from "../vector-store/chunks";
import { ROWS_PER_CALL, unitQuery, VectorTable, type Precision } from "./exact-kernel";
import { FloatRows } from "./float-rows";
import { loadTable, saveTable } from "./table-file";
import { retrievalState, type AgentVectors, type CompactRefusal, type ExactLimits } from "./state";

/**
 * Exact ranking: every ready chunk of an agent scored against the query, from the copy of the
 * vectors in SQLite (lib/db/chunk-vectors.ts), so the nearest chunks are returned whatever
 * Chroma's approximate index reaches. Agents of up to EXACT_MAX_CHUNKS chunks are ranked this
 * way. The vectors of recently searched agents are held in WebAssembly memory, unit length, and
 * scored by a SIMD kernel (lib/retrieval/exact-kernel.ts), up to EXACT_MEMORY_MB in all; an agent
 * past that is read from SQLite a page at a time on each search, so memory stays flat however
 * large the corpus grows.
 */

export type { AgentVectors };

const state = () => retrievalState().exact;

/** The most chunks an agent may have to be ranked exactly (0: never). */
export const exactLimit = (): number => state().limits.chunks ?? env().EXACT_MAX_CHUNKS;
const memoryBudget = (): number => (state().limits.memoryMb ?? env().EXACT_MEMORY_MB) * 1024 * 1024;

/** Tests set the limits of this process (and drop what is held); undefined goes back to the configuration. */
export function useExactLimits(limits: ExactLimits): void {
  state().limits = limits;
  for (const a of state().agents.values()) a.floats?.retire();
  state().agents.clear();
  state().searches.clear();
  state().refused.clear();
}

/** Bytes of vectors held in memory, all agents (health). */
export const exactBytesHeld = (): number => [...state().agents.values()].reduce((s, a) => s + a.bytes, 0);

/**
 * Chunks read from SQLite per step while an agent's vectors are loaded or streamed (4 KB each at
 * 1,024 dimensions: 16 MB a step), however large its documents; a larger document is one step.
 */
const CHUNKS_PER_READ = 4_096;
/** Chunks a step of a read from SQLite takes (tests make it small). */
export const chunksPerRead = (): number => state().limits.readChunks ?? CHUNKS_PER_READ;

/** Room a table that grew is made with beyond what it holds, for more documents to come; a first load has none. */
const SLACK = 1.25;
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Where reads of documents with these chunk counts end: each step holds at most `perRead` chunks,
 * or one document that holds more.
 */
export function readSteps(chunkCounts: number[], perRead = CHUNKS_PER_READ): number[] {
  const ends: number[] = [];
  for (let i = 0; i < chunkCounts.length;) {
    const from = i;
    for (let n = 0; i < chunkCounts.length && (i === from || n + chunkCounts[i] <= perRead); i++) n += chunkCounts[i];
    ends.push(i);
  }
  return ends;
}

/** The documents' stored runs, about CHUNKS_PER_READ chunks at a time. */
async function* runsOf(documents: number[], chunkCounts: number[], model: string): AsyncGenerator<VectorRun[]> {
  let from = 0;
  for (const end of readSteps(chunkCounts, chunksPerRead())) {
    yield readVectorRuns(documents.slice(from, end), model);
    from = end;
    await turn();
  }
}

const searchesOf = (key: string) => state().searches.get(key) ?? 0;

/** Counts a search of `key`; all counts halve once one passes 1,000, so that what was searched long ago weighs less. */
function countSearch(key: string): void {
  const searches = state().searches;
  const n = (searches.get(key) ?? 0) + 1;
  searches.set(key, n);
  if (n > 1_000) for (const [k, v] of searches) searches.set(k, v / 2);
}

function drop(key: string): void {
  state().agents.get(key)?.floats?.retire();
  state().agents.delete(key);
}

/**
 * Makes room for `bytes` more by dropping held tables, the least searched first (then the least
 * recently used); `onlyLessSearched`: only tables of agents searched less than `keep`. False when
 * the room cannot be made that way (nothing is dropped then).
 */
function evictFor(bytes: number, keep: string, onlyLessSearched = false): boolean {
  const budget = memoryBudget();
  const held = [...state().agents.entries()].filter(([k, a]) => a.table !== null && k !== keep);
  const mine = state().agents.get(keep)?.bytes ?? 0;
  let total = held.reduce((s, [, a]) => s + a.bytes, 0) + mine + bytes;
  const order = held
    .filter(([k]) => !onlyLessSearched || searchesOf(k) < searchesOf(keep))
    .sort((x, y) => searchesOf(x[0]) - searchesOf(y[0]) || x[1].usedAt - y[1].usedAt);
  const dropped: string[] = [];
  for (const [key, a] of order) {
    if (total <= budget) break;
    dropped.push(key);
    total -= a.bytes;
  }
  if (total > budget && onlyLessSearched) return false;
  for (const key of dropped) drop(key);
  return total <= budget;
}

/** The agent's ready documents as stored copies, streamed (table null); null while a copy is missing. */
function streamed(agentId: number, model: string, signature: string): AgentVectors | null {
  return streamedCoverage(readyVectorCoverage(agentId, model), model, signature);
}

function streamedCoverage(
  coverage: { document_id: number; chunk_count: number; stored: number }[],
  model: string,
  signature: string,
): AgentVectors | null {
  if (coverage.some((d) => d.stored !== d.chunk_count)) return null;
  const documents = coverage.map((d) => d.document_id);
  const chunkCounts = coverage.map((d) => d.chunk_count);
  const dimension = documents.length > 0 ? (readVectorRuns([documents[0]], model)[0]?.dimension ?? 0) : 0;
  const chunks = coverage.reduce((s, d) => s + d.chunk_count, 0);
  return { signature, table: null, documents, chunkCounts, chunks, dimension, bytes: 0, usedAt: Date.now() };
}

/**
 * The table for the ready set `agent` describes: the one held before with its removed documents
 * dropped and the new ones appended, or a new one when it has no room left (or a quarter is
 * removed rows). Null when the memory cannot be had: the agent is then streamed. A compact
 * table's float32 copies go to its float file alongside (`floats`), kept across new tables.
 */
async function tableFor(
  agent: AgentVectors,
  model: string,
  before: VectorTable | null,
  precision: Precision,
  floats?: FloatRows,
): Promise<VectorTable | null> {
  const ready = new Set(agent.documents);
  let table = before && before.dimension === agent.dimension && before.precision === precision ? before : null;
  if (table) for (const id of [...table.documentOf.subarray(0, table.rows)]) if (!ready.has(id) && table.hasDocument(id)) table.remove(id);
  if (floats) for (const [id] of floats.describe().documents) if (!ready.has(id)) floats.remove(id);
  if (floats && floats.dead * 4 > floats.size) await floats.rewrite();
  const added = agent.documents.flatMap((id, i) => (table?.hasDocument(id) ? [] : [{ id, chunks: agent.chunkCounts[i] }]));
  const addedRows = agent.chunks - (table?.live ?? 0);
  try {
    if (!table || table.rows + addedRows > table.capacity || table.dead * 4 > table.rows) {
      let capacity = table ? Math.ceil(agent.chunks * SLACK) : agent.chunks;
      if (VectorTable.bytesFor(agent.dimension, capacity, precision) > memoryBudget()) capacity = agent.chunks;
      if (VectorTable.bytesFor(agent.dimension, capacity, precision) > memoryBudget()) return null;
      table = table ? table.compacted(capacity) : new VectorTable(agent.dimension, capacity, precision);
    }
  } catch (err) {
    if (err instanceof RangeError) return null; // past what WebAssembly memory can hold
    throw err;
  }
  for await (const page of runsOf(
    added.map((d) => d.id),
    added.map((d) => d.chunks),
    model,
  ))
    for (const r of page) {
      table.append(r.document_id, r.first_chunk, r.count, r.vectors);
      if (floats && floats.offsetOf(r.document_id, r.first_chunk) === null) floats.append(r.document_id, r.first_chunk, r.count, r.vectors);
    }
  return table;
}

/**
 * Where an agent's compact table is kept, by agent and model, and its float files: each new one
 * has a name of its own, so that a search still reading an older one (its table dropped or built
 * again meanwhile) never reads another table's floats.
 */
function compactFiles(agentId: number, model: string): { dir: string; table: string; newFloats: () => string; floatsPrefix: string } {
  const dir = path.join(/*turbopackIgnore: true*/ env().DATA_DIR, "compact");
  fs.mkdirSync(dir, { recursive: true });
  const name = `agent-${agentId}-${createHash("sha256").update(model).digest("hex").slice(0, 12)}`;
  return {
    dir,
    table: path.join(/*turbopackIgnore: true*/ dir, `${name}.table`),
    floatsPrefix: `${name}.`,
    newFloats: () => path.join(/*turbopackIgnore: true*/ dir, `${name}.${Date.now().toString(36)}${(++floatFiles).toString(36)}.floats`),
  };
}
let floatFiles = 0;

/** A new float file for the agent's table, the older ones removed (an open one stays readable until closed). */
function newFloatRows(agentId: number, model: string, dimension: number): FloatRows {
  const files = compactFiles(agentId, model);
  const floats = FloatRows.create(files.newFloats(), dimension);
  for (const f of fs.readdirSync(files.dir))
    if (f.startsWith(files.floatsPrefix) && f.endsWith(".floats") && path.join(/*turbopackIgnore: true*/ files.dir, f) !== floats.file)
      fs.rmSync(path.join(/*turbopackIgnore: true*/ files.dir, f), { force: true });
  return floats;
}

/** What a compact table's file holds beside its rows (saveCompact). */
interface CompactMeta {
  agent_id: number;
  model: string;
  signature: string;
  floats: ReturnType<FloatRows["describe"]>;
}

/**
 * The agent's compact table as last written to disk, with its float file; null when there is none,
 * or it is of another agent, model or dimension, or either file is cut short or damaged (then it is
 * built again from SQLite). Reading it takes a fraction of a second where building it reads every
 * vector of the agent from SQLite.
 */
async function compactFromDisk(agentId: number, model: string, dimension: number, capacity: number): Promise<AgentVectors | null> {
  const files = compactFiles(agentId, model);
  let loaded: Awaited<ReturnType<typeof loadTable>>;
  try {
    loaded = await loadTable(files.table, { capacity });
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
  if (!loaded) return null;
  let meta: CompactMeta;
  try {
    meta = JSON.parse(loaded.meta) as CompactMeta;
  } catch {
    return null;
  }
  const { table } = loaded;
  if (meta.agent_id !== agentId || meta.model !== model || table.precision !== "i8" || table.dimension !== dimension) return null;
  if (typeof meta.floats?.file !== "string") return null;
  const floats = FloatRows.open(path.join(/*turbopackIgnore: true*/ files.dir, path.basename(meta.floats.file)), meta.floats);
  if (!floats) return null;
  return {
    signature: meta.signature,
    table,
    floats,
    documents: [],
    chunkCounts: [],
    chunks: table.live,
    dimension,
    bytes: table.bytes,
    usedAt: Date.now(),
  };
}

/** A compact table is written to disk at most this often while it changes (a restart reads it, then reads what changed since from SQLite). */
const SAVE_EVERY_MS = 60_000;

/**
 * Writes the agent's compact table to disk after a load, in the background: at once when none is
 * on disk, else at most once every SAVE_EVERY_MS (one write at a time per agent; a change meanwhile
 * writes it again after). The float file is made durable first, so a table file never describes
 * floats that are not there.
 */
function saveCompact(key: string, agentId: number, model: string): void {
  const saving = state().saving.get(key);
  if (saving) {
    saving.again = true;
    return;
  }
  const file = compactFiles(agentId, model).table;
  let age = Number.POSITIVE_INFINITY;
  try {
    age = Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    // none written yet
  }
  const mark = { again: false };
  state().saving.set(key, mark);
  void (async () => {
    try {
      // Waits out the rest of SAVE_EVERY_MS, unless the file is gone meanwhile.
      for (const until = Date.now() + SAVE_EVERY_MS - age; Date.now() < until && fs.existsSync(file);)
        await new Promise<void>((r) => setTimeout(r, Math.min(1_000, until - Date.now())).unref());
      do {
        mark.again = false;
        const have = state().agents.get(key);
        if (!have?.table || !have.floats) return;
        await have.floats.sync();
        const meta: CompactMeta = { agent_id: agentId, model, signature: have.signature, floats: have.floats.describe() };
        await saveTable(have.table, file, JSON.stringify(meta));
      } while (mark.again);
    } catch (err) {
      console.error("[kb-inspector] compact table not written to disk:", err instanceof Error ? err.message : err);
    } finally {
      state().saving.delete(key);
    }
  })();
}

async function load(
  agentId: number,
  model: string,
  signature: string,
  before: AgentVectors | undefined,
  precision: Precision,
): Promise<AgentVectors | null> {
  // A ready document without its copy: served by Chroma until start-up or the repair copies it.
  const agent = streamed(agentId, model, signature);
  if (!agent) return null;
  const bytes = VectorTable.bytesFor(agent.dimension, agent.chunks, precision);
  // Too large to hold: an exactly ranked agent is streamed; a compact table is of no use streamed.
  if (bytes > memoryBudget()) return precision === "f32" ? agent : null;
  const key = keyOf(agentId, model, precision);
  evictFor(bytes - (before?.bytes ?? 0), key);
  let floats = before?.floats;
  if (precision === "i8" && !before?.table) {
    // After a restart: the table written to disk last, brought up to date below.
    const disk = await compactFromDisk(agentId, model, agent.dimension, agent.chunks);
    if (disk) before = disk;
    floats = disk?.floats ?? newFloatRows(agentId, model, agent.dimension);
  }
  const table = await tableFor(agent, model, before?.table ?? null, precision, floats);
  if (table) evictFor(table.bytes - (before?.bytes ?? 0), key); // a table that grew took room to spare
  if (!table) {
    if (floats !== before?.floats) floats?.retire();
    return precision === "f32" ? agent : null;
  }
  return { ...agent, table, bytes: table.bytes, floats };
}

const keyOf = (agentId: number, model: string, precision: Precision) =>
  precision === "f32" ? `${agentId}|${model}` : `${agentId}|${model}|${precision}`;

/** The held vectors of `key`, loaded or brought up to date with the agent's ready documents (one load at a time per key). */
async function held(agent: AgentView, model: string, precision: Precision): Promise<AgentVectors | null> {
  const agentId = agent.id;
  const key = keyOf(agentId, model, precision);
  // The request's ready set first; after waiting for another search's load, the set as it is now.
  for (let signature = agent.readySignature(model); ; signature = readySignature(agentId, model)) {
    const have = state().agents.get(key);
    if (have?.signature === signature) {
      have.usedAt = Date.now();
      return have;
    }
    let loading = state().loading.get(key);
    if (!loading) {
      loading = load(agentId, model, signature, have, precision).finally(() => {
        state().loading.delete(key);
        state().quick.delete(key);
      });
      state().loading.set(key, loading);
      const loaded = await loading;
      if (loaded) {
        if (have && have.floats && have.floats !== loaded.floats) have.floats.retire();
        state().agents.set(key, loaded);
        if (precision === "i8") {
          state().refused.delete(key);
          saveCompact(key, agentId, model);
        }
      } else drop(key);
      return loaded;
    }
    await loading; // another search is loading it: look again once it is done
  }
}

/**
 * The agent's vectors for exact ranking, loaded or brought up to date with its ready documents;
 * null when the agent is not ranked exactly (larger than the limit, or a ready document whose
 * vectors have no copy yet).
 */
export async function exactVectors(ref: AgentRef, model: string, opts: { anySize?: boolean } = {}): Promise<AgentVectors | null> {
  const agent = AgentView.of(ref);
  // A filtered view is always ranked exactly, among the documents it matches only: the held
  // table scored at their rows alone, or their copies read from SQLite past the limit.
  if (agent.scope) {
    const all = await exactVectors(agent.unfiltered(), model, { anySize: true });
    return all && narrowed(all, agent.scope.documents);
  }
  if (agent.draft) return draftVectors(agent, model);
  const limit = exactLimit();
  if (limit <= 0 || agent.readyChunkCount() > limit) {
    // The ranking a diagnosis compares with: read from SQLite as it goes, never held.
    return opts.anySize ? streamed(agent.id, model, agent.readySignature(model)) : null;
  }
  return held(agent, model, "f32");
}

/**
 * The vectors of a draft's view (AgentView.asDraft), always ranked exactly: what is served (the
 * held table, or streamed past the limit) with the documents the draft replaces or removes
 * masked, and the draft's versions streamed after them. A row's distance does not depend on
 * where it is scored, so once the draft is published and its versions join the held table, each
 * chunk's distance and the ranking (distance, document, chunk) are what the preview showed. Past
 * EXACT_MAX_CHUNKS the agent is served from Chroma's index, whose ranking the preview does not
 * reproduce: it shows the exact one. Null while a copy of the vectors is missing.
 */
async function draftVectors(agent: AgentView, model: string): Promise<AgentVectors | null> {
  const draft = agent.draft!;
  const served = agent.served();
  const limit = exactLimit();
  const base =
    limit > 0 && served.readyChunkCount() > 0 && served.readyChunkCount() <= limit
      ? await held(served, model, "f32")
      : streamed(served.id, model, served.readySignature(model));
  if (!base) return null;
  const more = streamedCoverage(vectorCoverage([...draft.added.keys()], model), model, `draft ${draft.id}`);
  if (!more) return null;
  const masked = base.documents.flatMap((id, i) => (draft.removed.has(id) ? [{ id, chunks: base.chunkCounts[i] }] : []));
  return {
    ...base,
    signature: agent.readySignature(model),
    chunks: base.chunks - masked.reduce((n, d) => n + d.chunks, 0) + more.chunks,
    mask: new Set(masked.map((d) => d.id)),
    more: more.chunks > 0 ? more : undefined,
  };
}

/**
 * Vectors narrowed to `documents` (a filter's matches, id to chunk count): a held table keeps its
 * rows and scores only theirs; a streamed part reads only theirs.
 */
export function narrowed(v: AgentVectors, documents: Map<number, number>): AgentVectors {
  const keep = (p: AgentVectors): AgentVectors => {
    if (p.table) return { ...p, only: new Set(documents.keys()) };
    const at = p.documents.flatMap((id, i) => (documents.has(id) ? [i] : []));
    const chunkCounts = at.map((i) => p.chunkCounts[i]);
    return { ...p, documents: at.map((i) => p.documents[i]), chunkCounts, chunks: chunkCounts.reduce((s, n) => s + n, 0) };
  };
  const chunks = [...documents].reduce((n, [id, count]) => n + (v.mask?.has(id) ? 0 : count), 0);
  return { ...keep(v), chunks, more: v.more && keep(v.more) };
}

/**
 * Chunks a held compact table may gain on a search's path (a read of their copies from SQLite);
 * a larger change is loaded in the background while Chroma's index serves the agent.
 */
const INLINE_UPDATE_CHUNKS = 4_096;

/**
 * An agent past the exact limit, held as a compact table (int8, a quarter of the memory; see
 * lib/retrieval/compact.ts) within the same memory budget and brought up to date with its new
 * documents, or null while it is not: Chroma's index serves the agent then. The search path never
 * builds a table: when none is held its load starts in the background (from the table written to
 * disk last when there is one, else from every vector of the agent in SQLite), unless memory
 * cannot hold it beside the tables of agents searched more (compactState says so). A search waits
 * only for a table being read from disk, or a held one gaining a few documents. `wait`: load it
 * now whatever it takes (tests, the warm-up after start).
 */
export async function compactVectors(ref: AgentRef, model: string, { wait = false } = {}): Promise<AgentVectors | null> {
  const agent = AgentView.of(ref);
  const key = keyOf(agent.id, model, "i8");
  if (wait) return held(agent, model, "i8");
  const have = state().agents.get(key);
  const signature = agent.readySignature(model);
  if (have?.signature === signature) {
    have.usedAt = Date.now();
    return have;
  }
  const loading = state().loading.get(key);
  if (loading) {
    if (!state().quick.has(key)) return null;
    await loading.catch(() => null);
    const now = state().agents.get(key);
    return now?.signature === signature ? now : null;
  }
  if (
    have &&
    agent.readyChunkCount() - have.chunks <= INLINE_UPDATE_CHUNKS &&
    have.table &&
    have.table.rows + INLINE_UPDATE_CHUNKS <= have.table.capacity
  )
    return held(agent, model, "i8");
  if (!roomForCompact(agent, model, key)) return null;
  if (fs.existsSync(compactFiles(agent.id, model).table)) state().quick.add(key);
  const started = held(agent, model, "i8").catch((err) => {
    console.error("[kb-inspector] compact table not loaded:", err instanceof Error ? err.message : err);
    return null;
  });
  if (state().quick.has(key)) {
    const now = await started;
    return now?.signature === signature ? now : null;
  }
  return null;
}

/**
 * Whether memory can hold the agent's compact table: within EXACT_MEMORY_MB, making room by
 * dropping tables of agents searched less. Records the refusal for Index health otherwise.
 */
function roomForCompact(agent: AgentView, model: string, key: string): boolean {
  const dimension = agent.readyChunkCount() > 0 ? dimensionOf(agent.id, model) : 0;
  const bytes = VectorTable.bytesFor(dimension, agent.readyChunkCount(), "i8");
  const fits = bytes <= memoryBudget() && evictFor(bytes - (state().agents.get(key)?.bytes ?? 0), key, true);
  if (fits) state().refused.delete(key);
  else state().refused.set(key, { reason: "memory", needed_mb: Math.ceil(bytes / (1024 * 1024)), at: Date.now() });
  return fits;
}

function dimensionOf(agentId: number, model: string): number {
  const coverage = readyVectorCoverage(agentId, model);
  const first = coverage.find((d) => d.chunk_count > 0);
  return first ? (readVectorRuns([first.document_id], model)[0]?.dimension ?? 0) : 0;
}

/** How an agent past the exact limit is served now: from its compact table, or by the index while it loads or when memory cannot hold it. */
export type CompactServing =
  { served: "compact"; table_mb: number } | { served: "index"; reason: "loading" | "not_loaded" } | ({ served: "index" } & CompactRefusal);

export function compactState(agentId: number, model: string): CompactServing {
  const key = keyOf(agentId, model, "i8");
  const have = state().agents.get(key);
  if (have?.table && have.signature === readySignature(agentId, model))
    return { served: "compact", table_mb: Math.round((have.bytes / (1024 * 1024)) * 10) / 10 };
  if (state().loading.has(key)) return { served: "index", reason: "loading" };
  const refused = state().refused.get(key);
  if (refused) return { served: "index", ...refused };
  return { served: "index", reason: "not_loaded" };
}

/**
 * How an agent past the exact limit is served, in words for Index health and the index-recall
 * monitor; null for an agent within the limit (ranked exactly from its float32 table).
 */
export function compactServingText(agentId: number, model: string): string | null {
  const limit = exactLimit();
  if (limit <= 0 || agentChunkCount(agentId) <= limit) return null;
  const s = compactState(agentId, model);
  if (s.served === "compact") return `ranked exactly from its compact table (${s.table_mb.toLocaleString("en")} MB)`;
  if (s.reason === "memory")
    return `Chroma's index: memory cannot hold its compact table (${s.needed_mb.toLocaleString("en")} MB needed beside the tables of agents searched more; EXACT_MEMORY_MB is ${(memoryBudget() / (1024 * 1024)).toLocaleString("en")})`;
  if (s.reason === "loading") return "Chroma's index while its compact table loads";
  return "Chroma's index until its compact table is loaded (at its first search)";
}

/** Counts a search of the agent: memory keeps the tables of the agents searched most. */
export function searched(agentId: number, model: string, compact: boolean): void {
  countSearch(keyOf(agentId, model, compact ? "i8" : "f32"));
}

/** The n-th smallest of xs (quickselect on a copy). */
export function nthSmallest(xs: Float32Array, n: number): number {
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
      if (i <= j) {
        [a[i], a[j]] = [a[j], a[i]];
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}

/** Every ready chunk's distance to each query, in the order the scan met them (a held table's: its row order). */
export interface Scan {
  rows: number;
  documentOf: Int32Array;
  chunkOf: Int32Array;
  /** Per query: distances in float32, as Chroma gives its own; +Infinity for a row of a document removed meanwhile. */
  dist: Float32Array[];
}

/**
 * Scores every ready chunk against each query, a kernel call at a time with a turn of the event
 * loop between, so that other requests are served during a long scan. A held table may gain rows
 * or lose documents meanwhile (another search brings it up to date): rows past those it had are
 * not read, and rows of documents removed by then are dropped.
 */
export function scan(agent: AgentVectors, model: string, vectors: number[][]): Promise<Scan> {
  // Counted as a search, so that uploads' adds give way to it as they do to Chroma's queries:
  // what competes with a scan is the app's own work of sending them.
  return asSearch(() => scanNow(agent, model, vectors));
}

async function scanNow(agent: AgentVectors, model: string, vectors: number[][]): Promise<Scan> {
  const queries = vectors.map(unitQuery);
  const scoreTable = async (t: VectorTable, out: Scan, only?: Set<number>) => {
    const rows = t.rows;
    if (only) {
      // Filtered: only the matched documents' rows are scored; the others stay as if removed.
      const { spans, gaps } = scoredSpans(t.rangesOf(only));
      for (const d of out.dist) d.fill(Number.POSITIVE_INFINITY, out.rows, out.rows + rows);
      for (const batch of batchesOf(spans)) {
        t.scoreRanges(queries, batch, out.dist, out.rows);
        await turn();
      }
      for (const [start, count] of gaps)
        for (const d of out.dist) d.fill(Number.POSITIVE_INFINITY, out.rows + start, out.rows + start + count);
    } else {
      for (let from = 0; from < rows; from += ROWS_PER_CALL) {
        const n = Math.min(ROWS_PER_CALL, rows - from);
        t.score(queries, from, n, out.dist, out.rows + from);
        await turn();
      }
    }
    out.documentOf.set(t.documentOf.subarray(0, rows), out.rows);
    out.chunkOf.set(t.chunkOf.subarray(0, rows), out.rows);
    for (let r = 0; r < rows; r++) if (!t.alive[r]) for (const d of out.dist) d[out.rows + r] = Number.POSITIVE_INFINITY;
    out.rows += rows;
  };
  const parts = agent.more ? [agent, agent.more] : [agent];
  const sizeOf = (part: AgentVectors) => (part.table ? part.table.rows : part.chunks);
  const size = parts.reduce((n, part) => n + sizeOf(part), 0);
  const out: Scan = {
    rows: 0,
    documentOf: new Int32Array(size),
    chunkOf: new Int32Array(size),
    dist: queries.map(() => new Float32Array(size)),
  };
  for (const part of parts) {
    if (part.table) {
      await scoreTable(part.table, out, part.only);
      continue;
    }
    // One table for every page, emptied between them: making a WebAssembly memory per page took
    // most of a streamed scan's time (docs/performance.md, 'Readers of every chunk').
    const end = out.rows + sizeOf(part);
    let t: VectorTable | null = null;
    for await (const page of runsOf(part.documents, part.chunkCounts, model)) {
      const rows = page.reduce((n, r) => n + r.count, 0);
      if (rows === 0 || out.rows + rows > end) continue; // documents changed since the agent was described
      if (!t || t.capacity < rows) t = new VectorTable(part.dimension, Math.max(rows, chunksPerRead()));
      t.clear();
      for (const r of page) t.append(r.document_id, r.first_chunk, r.count, r.vectors);
      await scoreTable(t, out);
    }
  }
  // A draft's view: the documents it replaces or removes are not there.
  if (agent.mask?.size)
    for (let r = 0; r < out.rows; r++) if (agent.mask.has(out.documentOf[r])) for (const d of out.dist) d[r] = Number.POSITIVE_INFINITY;
  return out;
}

/**
 * Rows between two runs of matched documents closer than this are scored with them and blanked
 * after: a kernel call costs about as much as scoring this many rows.
 */
const GAP_SCORED = 32;

/** The spans a filtered scan scores (runs joined across short gaps) and the gaps it blanks again. */
function scoredSpans(ranges: [number, number][]): { spans: [number, number][]; gaps: [number, number][] } {
  const spans: [number, number][] = [];
  const gaps: [number, number][] = [];
  for (const [start, count] of ranges) {
    const last = spans.at(-1);
    const gap = last ? start - (last[0] + last[1]) : Number.POSITIVE_INFINITY;
    if (last && gap <= GAP_SCORED) {
      if (gap > 0) gaps.push([last[0] + last[1], gap]);
      last[1] += gap + count;
    } else spans.push([start, count]);
  }
  return { spans, gaps };
}

/** Spans cut to at most ROWS_PER_CALL rows each, grouped into batches of about ROWS_PER_CALL rows (a turn of the event loop between). */
function batchesOf(spans: [number, number][]): [number, number][][] {
  const batches: [number, number][][] = [[]];
  let inBatch = 0;
  for (const [start, count] of spans) {
    for (let from = start; from < start + count; from += ROWS_PER_CALL) {
      const n = Math.min(ROWS_PER_CALL, start + count - from);
      if (inBatch + n > ROWS_PER_CALL && inBatch > 0) {
        batches.push([]);
        inBatch = 0;
      }
      batches.at(-1)!.push([from, n]);
      inBatch += n;
    }
  }
  return batches;
}

const closestFirst = (a: RankedChunk, b: RankedChunk) =>
  a.score - b.score || a.document_id - b.document_id || a.chunk_index - b.chunk_index;

/** The n nearest of one query's scan, in ranking order (distance, then document, then chunk). */
function nearestOf(s: Scan, q: number, n: number): RankedChunk[] {
  const d = s.dist[q].subarray(0, s.rows);
  const bound = n >= s.rows ? Number.POSITIVE_INFINITY : nthSmallest(d, n);
  const hits: RankedChunk[] = [];
  for (let i = 0; i < s.rows; i++)
    if (d[i] <= bound && d[i] !== Number.POSITIVE_INFINITY)
      hits.push({ document_id: s.documentOf[i], chunk_index: s.chunkOf[i], score: d[i] });
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
    for (let i = 0; i < s.rows; i++)
      if (wanted.has(s.documentOf[i]) && d[i] !== Number.POSITIVE_INFINITY)
        found.push({ document_id: s.documentOf[i], chunk_index: s.chunkOf[i], score: d[i] });
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

/** The compact tables and float files of agents deleted since: about 5 KB a chunk of disk each. */
function removeCompactFilesOfDeletedAgents(): void {
  const dir = path.join(/*turbopackIgnore: true*/ env().DATA_DIR, "compact");
  if (!fs.existsSync(dir)) return;
  const agents = new Set(listAgents().map((a) => a.id));
  for (const f of fs.readdirSync(dir)) {
    const id = /^agent-(\d+)-/.exec(f)?.[1];
    if (id !== undefined && !agents.has(Number(id))) fs.rmSync(path.join(/*turbopackIgnore: true*/ dir, f), { force: true });
  }
}

/**
 * Loads the vectors of the given agents after start-up (the most recently searched first), while
 * the memory budget lasts: an exactly ranked agent's table from SQLite, a compact table from the
 * file it was last written to (or from SQLite when there is none). A load a search started goes
 * first: this waits for it.
 */
export async function warmExactVectors(model: string, agentIds: number[]): Promise<void> {
  removeCompactFilesOfDeletedAgents();
  for (const agentId of new Set(agentIds)) {
    while (state().loading.size > 0) await Promise.allSettled([...state().loading.values()]);
    if (exactBytesHeld() >= memoryBudget()) return;
    const agent = AgentView.of(agentId);
    const limit = exactLimit();
    if (limit > 0 && agent.readyChunkCount() <= limit) {
      await exactVectors(agent, model);
      continue;
    }
    const key = keyOf(agentId, model, "i8");
    if (agent.readyChunkCount() === 0 || state().agents.has(key) || !roomForCompact(agent, model, key)) continue;
    if (fs.existsSync(compactFiles(agentId, model).table)) state().quick.add(key);
    await held(agent, model, "i8");
  }
}
