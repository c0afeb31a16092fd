import "server-only";
import { db, now } from "./client";

/** An agent's query-weighting counts as kept on disk (see lib/retrieval/corpus-stats.ts). */
export interface StoredCorpusStats {
  model: string;
  chunks: number;
  /** document id → what its chunks were made from, as JSON pairs */
  docs: [number, string][];
  counts: Buffer;
}

export function loadCorpusStats(agentId: number): StoredCorpusStats | undefined {
  const row = db().prepare("SELECT model, chunks, docs, counts FROM corpus_stats WHERE agent_id = ?").get(agentId) as
    { model: string; chunks: number; docs: string; counts: Buffer } | undefined;
  return row && { model: row.model, chunks: row.chunks, docs: JSON.parse(row.docs), counts: row.counts };
}

/** Saves an agent's counts; a no-op when the agent is gone. */
export function saveCorpusStats(agentId: number, s: StoredCorpusStats): void {
  db()
    .prepare(
      `INSERT INTO corpus_stats (agent_id, model, chunks, docs, counts, updated_at)
       SELECT @agent_id, @model, @chunks, @docs, @counts, @t WHERE EXISTS (SELECT 1 FROM agents WHERE id = @agent_id)
       ON CONFLICT (agent_id) DO UPDATE SET model = excluded.model, chunks = excluded.chunks, docs = excluded.docs,
         counts = excluded.counts, updated_at = excluded.updated_at`,
    )
    .run({ agent_id: agentId, model: s.model, chunks: s.chunks, docs: JSON.stringify(s.docs), counts: s.counts, t: now() });
}

export function deleteCorpusStats(agentId: number): void {
  db().prepare("DELETE FROM corpus_stats WHERE agent_id = ?").run(agentId);
}
