import "server-only";
import { chunkText } from "./chunking";
import { db } from "./db";
import type { CorpusStats, Embedder } from "./embeddings";

/**
 * Per-agent feature counts for query-side term weighting (see Embedder.embedQueries): in how
 * many of the agent's indexed chunks each feature occurs. Derived from the documents' stored
 * text, so it needs no bookkeeping in ingest or delete and is right in any process: each call
 * compares the agent's ready documents with what the counts were built from, adds new documents
 * and rebuilds from scratch when one was removed or replaced.
 */

interface Entry {
  model: string;
  /** document id → what its chunks were made from */
  docs: Map<number, string>;
  chunks: number;
  df: Map<number, number>;
}

interface DocKeyRow {
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

const docKey = (r: DocKeyRow) => `${r.sha256}:${r.chunk_size}:${r.chunk_overlap}`;

/**
 * The counts over an agent's ready chunks embedded by `e`'s model, or null when the provider
 * does not weight queries by corpus.
 */
export async function agentCorpusStats(agentId: number, e: Embedder): Promise<CorpusStats | null> {
  if (!e.corpusFeatures || !e.embedQueries) return null;
  // One update at a time per agent, so two searches never both add the same document.
  const previous = locks.get(agentId) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => update(agentId, e));
  locks.set(agentId, next);
  try {
    return await next;
  } finally {
    if (locks.get(agentId) === next) locks.delete(agentId);
  }
}

async function update(agentId: number, e: Embedder): Promise<CorpusStats> {
  const rows = db()
    .prepare(
      "SELECT id, sha256, chunk_size, chunk_overlap FROM documents WHERE agent_id = ? AND status = 'ready' AND embedding_model = ?",
    )
    .all(agentId, e.model) as DocKeyRow[];
  let entry = cache.get(agentId);
  const current = new Map(rows.map((r) => [r.id, docKey(r)]));
  const stale = !entry || entry.model !== e.model || [...entry.docs].some(([id, key]) => current.get(id) !== key);
  if (!entry || stale) entry = { model: e.model, docs: new Map(), chunks: 0, df: new Map() };
  cache.delete(agentId); // re-inserted last: the most recently used
  cache.set(agentId, entry);
  while (cache.size > MAX_AGENTS) cache.delete(cache.keys().next().value!);

  const text = db().prepare("SELECT text FROM documents WHERE id = ?");
  let lastYield = performance.now();
  for (const [id, key] of current) {
    if (entry.docs.has(id)) continue;
    const row = text.get(id) as { text: string } | undefined;
    if (!row) continue;
    const [, size, overlap] = key.split(":");
    const chunks = chunkText(row.text, Number(size), Number(overlap));
    const features = await e.corpusFeatures!(chunks.map((c) => c.text));
    for (const list of features) for (const f of list) entry.df.set(f, (entry.df.get(f) ?? 0) + 1);
    entry.chunks += chunks.length;
    entry.docs.set(id, key);
    // Long rebuilds (large agents) must not hold the event loop for seconds.
    if (performance.now() - lastYield > 50) {
      await new Promise<void>((r) => setImmediate(r));
      lastYield = performance.now();
    }
  }
  return { chunks: entry.chunks, df: entry.df };
}
