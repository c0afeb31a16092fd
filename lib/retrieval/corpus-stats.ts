import "server-only";
import { chunkText, indexedText, type ChunkStrategy } from "../core/chunking";
import { agentsByLatestChange, readyDocumentKeys, documentsOfModel as readyDocumentKeysOf } from "../db/documents";
import { AgentView, type AgentRef } from "../db/agent-view";
import { documentChunks } from "../db/chunks";
import { deleteCorpusStats, loadCorpusStats, saveCorpusStats } from "../db/corpus-stats";
import { featureCountsFromBuffer, featureCountsToBuffer, newFeatureCounts, type CorpusStats, type Embedder } from "../embeddings";
import { retrievalState, type CorpusEntry } from "./state";

/**
 * Per-agent feature counts for query-side term weighting (see Embedder.embedQueries): in how
 * many of the agent's indexed chunks each feature occurs. Derived from the stored chunk text,
 * kept in memory and on disk (`corpus_stats`, written a few seconds after a change and at exit),
 * so a restart loads them instead of counting every chunk again. Each search checks a signature
 * of the agent's ready documents (one indexed read); when it changed, it compares the documents
 * with what the counts were built from and adds new ones; removeDocument takes a document out
 * while its text is still there. Anything else that changes (another model, a document gone some
 * other way) is caught by the same comparison and rebuilds the counts from scratch, so they are
 * always those of the agent's current chunks.
 */

interface DocKey {
  id: number;
  sha256: string;
  chunk_size: number;
  chunk_overlap: number;
  chunk_strategy: ChunkStrategy;
}

/** Agents whose counts stay in memory (least recently searched dropped first). */
const MAX_AGENTS = 16;

const counts = retrievalState().corpus;
const cache = counts.entries;
const locks = counts.lines;

const docKey = (d: DocKey) => `${d.sha256}:${d.chunk_size}:${d.chunk_overlap}:${d.chunk_strategy}`;

/** Runs `fn` after every earlier call for the same agent has finished. */
async function serialized<T>(agentId: number, fn: () => Promise<T>): Promise<T> {
  const next = (locks.get(agentId) ?? Promise.resolve()).catch(() => {}).then(fn);
  locks.set(agentId, next);
  try {
    return await next;
  } finally {
    if (locks.get(agentId) === next) locks.delete(agentId);
  }
}

/**
 * The counts over an agent's ready chunks embedded by `e`'s model, or null when the provider
 * does not weight queries by corpus.
 */
export async function agentCorpusStats(ref: AgentRef, e: Embedder): Promise<CorpusStats | null> {
  if (!e.countFeatures || !e.embedQueries) return null;
  // A filter narrows what is ranked, not how queries are weighted: the whole agent's counts.
  const agent = AgentView.of(ref).unfiltered();
  if (agent.draft) return agent.memo(`corpus ${e.model}`, () => draftCorpusStats(agent, e));
  return serialized(agent.id, () => update(agent, e));
}

/**
 * A draft's view: the served counts, copied, less the chunks of the documents it replaces or
 * removes and plus those of its versions. Counts are whole numbers, so these are the counts the
 * agent has once the draft is published, however they are reached.
 */
async function draftCorpusStats(agent: AgentView, e: Embedder): Promise<CorpusStats> {
  const served = (await agentCorpusStats(agent.served(), e))!;
  const df = featureCountsFromBuffer(featureCountsToBuffer(served.df));
  const draft = agent.draft!;
  const model = (ids: number[]) => readyDocumentKeysOf(ids, e.model);
  let chunks = served.chunks;
  for (const [ids, n] of [
    [model([...draft.removed.keys()]), -1],
    [model([...draft.added.keys()]), 1],
  ] as const) {
    for (const id of ids) {
      const texts = documentChunks(id).map(indexedText);
      await e.countFeatures!(texts, df, n);
      chunks += n * texts.length;
    }
  }
  return { chunks, df };
}

/** The counts as last saved, if they were made for this model. */
function fromDisk(agentId: number, model: string): CorpusEntry | undefined {
  const stored = loadCorpusStats(agentId);
  if (!stored || stored.model !== model) return undefined;
  return { model, signature: "", docs: new Map(stored.docs), chunks: stored.chunks, df: featureCountsFromBuffer(stored.counts) };
}

async function update(agent: AgentView, e: Embedder): Promise<CorpusStats> {
  const agentId = agent.id;
  const signature = agent.readySignature(e.model);
  let entry = cache.get(agentId) ?? fromDisk(agentId, e.model);
  cache.delete(agentId); // re-inserted last: the most recently used
  if (entry && entry.model === e.model && entry.signature === signature) {
    cache.set(agentId, entry);
    return { chunks: entry.chunks, df: entry.df };
  }
  const rows: DocKey[] = readyDocumentKeys(agentId, e.model);
  const current = new Map(rows.map((r) => [r.id, docKey(r)]));
  const stale = !entry || entry.model !== e.model || [...entry.docs].some(([id, key]) => current.get(id) !== key);
  if (!entry || stale) entry = { model: e.model, signature: "", docs: new Map(), chunks: 0, df: newFeatureCounts() };
  cache.set(agentId, entry);
  while (cache.size > MAX_AGENTS) cache.delete(cache.keys().next().value!);
  let changed = stale;

  let lastYield = performance.now();
  try {
    for (const [id, key] of current) {
      if (entry.docs.has(id)) continue;
      const chunks = documentChunks(id);
      if (chunks.length === 0) continue;
      await e.countFeatures!(chunks.map(indexedText), entry.df);
      entry.chunks += chunks.length;
      entry.docs.set(id, key);
      changed = true;
      // Long rebuilds (large agents) must not hold the event loop for seconds.
      if (performance.now() - lastYield > 50) {
        await new Promise<void>((r) => setImmediate(r));
        lastYield = performance.now();
      }
    }
  } catch (err) {
    // A document may be half counted: start again from scratch next time.
    if (cache.get(agentId) === entry) cache.delete(agentId);
    throw err;
  }
  entry.signature = signature;
  if (changed) scheduleSave(agentId);
  return { chunks: entry.chunks, df: entry.df };
}

const SAVE_DELAY_MS = 3_000;
const saveTimers = counts.saves;

/** Writes an agent's counts to disk a little later: a burst of uploads is written once. */
function scheduleSave(agentId: number): void {
  if (saveTimers.has(agentId)) return;
  const timer = setTimeout(() => saveNow(agentId), SAVE_DELAY_MS);
  timer.unref();
  saveTimers.set(agentId, timer);
}

function saveNow(agentId: number): void {
  clearTimeout(saveTimers.get(agentId));
  saveTimers.delete(agentId);
  const entry = cache.get(agentId);
  if (!entry) return;
  try {
    saveCorpusStats(agentId, { model: entry.model, chunks: entry.chunks, docs: [...entry.docs], counts: featureCountsToBuffer(entry.df) });
  } catch (err) {
    console.error("[kb-inspector] could not save query-weighting counts:", err instanceof Error ? err.message : err);
  }
}

/** Writes every pending agent's counts now (at exit, and in tests). */
export function saveCorpusStatsNow(): void {
  for (const agentId of [...saveTimers.keys()]) saveNow(agentId);
}

// Once per process, however many times this module is loaded.
if (!counts.exitHook) {
  process.once("exit", saveCorpusStatsNow); // SQLite writes are synchronous, so this completes
  counts.exitHook = true;
}

/**
 * Takes a document's chunks out of its agent's counts, before its row (and text) is deleted, so
 * the next search does not rebuild them all. A no-op when they were never counted.
 */
export async function forgetDocument(agentId: number, doc: DocKey & { text: string; indexed?: string[] }, e: Embedder): Promise<void> {
  await serialized(agentId, async () => {
    const entry = cache.get(agentId);
    if (!entry || entry.docs.get(doc.id) !== docKey(doc)) return;
    entry.docs.delete(doc.id);
    if (entry.model !== e.model || !e.countFeatures) {
      cache.delete(agentId);
      return;
    }
    // What its chunks were indexed by: read as it was retired, or from its rows while they are
    // there. Made again from its text only for a version with neither (curation's questions and
    // edits would then be missing, so the counts are rebuilt instead).
    const stored = doc.indexed ?? documentChunks(doc.id).map(indexedText);
    const chunks = stored.length > 0 ? stored : chunkText(doc.text, doc.chunk_size, doc.chunk_overlap, doc.chunk_strategy).map(indexedText);
    try {
      await e.countFeatures(chunks, entry.df, -1);
      entry.chunks -= chunks.length;
      entry.signature = ""; // the ready set changed: compared again by the next search
      scheduleSave(agentId);
    } catch {
      cache.delete(agentId); // rebuilt by the next search
    }
  });
}

/** Drops an agent's counts (the agent is gone; its id may be given to a new agent). */
export function forgetAgent(agentId: number): void {
  cache.delete(agentId);
  clearTimeout(saveTimers.get(agentId));
  saveTimers.delete(agentId);
  deleteCorpusStats(agentId);
}

/**
 * Builds the counts of the agents with the most recently changed documents (at most as many as
 * stay in memory), one after the other, so their first search after a start is fast. Run in the
 * background at start; a search that comes first simply waits for its agent's counts.
 */
export async function warmCorpusStats(e: Embedder): Promise<number> {
  if (!e.countFeatures || !e.embedQueries) return 0;
  const agents = agentsByLatestChange(e.model, MAX_AGENTS);
  for (const agentId of agents.reverse()) await agentCorpusStats(agentId, e); // most recent last: kept longest
  return agents.length;
}

/** Drops every agent's counts from memory, as a restart does; what was saved stays on disk (tests). */
export function clearCorpusStatsMemory(): void {
  cache.clear();
}

/** Whether an agent's counts are in memory (diagnostics and tests). */
export function hasCorpusStats(agentId: number): boolean {
  return cache.has(agentId);
}
