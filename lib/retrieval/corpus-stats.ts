import "server-only";
import { chunkText } from "../ingest/chunking";
import { agentsByLatestChange, documentText, readyDocumentKeys } from "../db/documents";
import { newFeatureCounts, type CorpusStats, type Embedder, type FeatureCounts } from "../embeddings";

/**
 * Per-agent feature counts for query-side term weighting (see Embedder.embedQueries): in how
 * many of the agent's indexed chunks each feature occurs. Derived from the documents' stored
 * text and kept in memory. Each search compares the agent's ready documents with what the counts
 * were built from and adds new documents; removeDocument takes a document out while its text is
 * still there. Anything else that changes (another model, a document gone some other way) is
 * caught by the same comparison and rebuilds the counts from scratch, so they are always those
 * of the agent's current chunks.
 */

interface Entry {
  model: string;
  /** document id → what its chunks were made from */
  docs: Map<number, string>;
  chunks: number;
  df: FeatureCounts;
}

interface DocKey {
  id: number;
  sha256: string;
  chunk_size: number;
  chunk_overlap: number;
}

/** Agents whose counts stay in memory (least recently searched dropped first). */
const MAX_AGENTS = 16;

const holder = globalThis as unknown as {
  __kbCorpusStats?: Map<number, Entry>;
  __kbCorpusStatsLock?: Map<number, Promise<unknown>>;
};
const cache = (holder.__kbCorpusStats ??= new Map());
const locks = (holder.__kbCorpusStatsLock ??= new Map());

const docKey = (d: DocKey) => `${d.sha256}:${d.chunk_size}:${d.chunk_overlap}`;

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
export async function agentCorpusStats(agentId: number, e: Embedder): Promise<CorpusStats | null> {
  if (!e.countFeatures || !e.embedQueries) return null;
  return serialized(agentId, () => update(agentId, e));
}

async function update(agentId: number, e: Embedder): Promise<CorpusStats> {
  const rows: DocKey[] = readyDocumentKeys(agentId, e.model);
  const current = new Map(rows.map((r) => [r.id, docKey(r)]));
  let entry = cache.get(agentId);
  const stale = !entry || entry.model !== e.model || [...entry.docs].some(([id, key]) => current.get(id) !== key);
  if (!entry || stale) entry = { model: e.model, docs: new Map(), chunks: 0, df: newFeatureCounts() };
  cache.delete(agentId); // re-inserted last: the most recently used
  cache.set(agentId, entry);
  while (cache.size > MAX_AGENTS) cache.delete(cache.keys().next().value!);

  let lastYield = performance.now();
  try {
    for (const [id, key] of current) {
      if (entry.docs.has(id)) continue;
      const text = documentText(id);
      if (text === undefined) continue;
      const [, size, overlap] = key.split(":");
      const chunks = chunkText(text, Number(size), Number(overlap));
      await e.countFeatures!(chunks.map((c) => c.text), entry.df);
      entry.chunks += chunks.length;
      entry.docs.set(id, key);
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
  return { chunks: entry.chunks, df: entry.df };
}

/**
 * Takes a document's chunks out of its agent's counts, before its row (and text) is deleted, so
 * the next search does not rebuild them all. A no-op when they were never counted.
 */
export async function forgetDocument(
  agentId: number,
  doc: DocKey & { text: string },
  e: Embedder,
): Promise<void> {
  await serialized(agentId, async () => {
    const entry = cache.get(agentId);
    if (!entry || entry.docs.get(doc.id) !== docKey(doc)) return;
    entry.docs.delete(doc.id);
    if (entry.model !== e.model || !e.countFeatures) {
      cache.delete(agentId);
      return;
    }
    const chunks = chunkText(doc.text, doc.chunk_size, doc.chunk_overlap);
    try {
      await e.countFeatures(chunks.map((c) => c.text), entry.df, -1);
      entry.chunks -= chunks.length;
    } catch {
      cache.delete(agentId); // rebuilt by the next search
    }
  });
}

/** Drops an agent's counts (the agent is gone; its id may be given to a new agent). */
export function forgetAgent(agentId: number): void {
  cache.delete(agentId);
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

/** Whether an agent's counts are in memory (diagnostics and tests). */
export function hasCorpusStats(agentId: number): boolean {
  return cache.has(agentId);
}
