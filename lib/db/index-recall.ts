import "server-only";
import { db } from "./client";

/** One measurement of the index-recall monitor (lib/retrieval/index-recall.ts), as stored. */
export interface IndexRecallRow {
  id: number;
  agent_id: number;
  model: string;
  k: number;
  /** Logged queries replayed; 0 when nothing could be measured (reason says why). */
  queries: number;
  /** Recall@k of what searches get against the exact top k; null when not measured. */
  served_recall: number | null;
  /** Recall@k of Chroma's index alone (its filtered query read k deep). */
  index_recall: number | null;
  /** 1 when searches rank the agent exactly; null when not measured. */
  served_exactly: number | null;
  /** Queries whose exact nearest chunk was not in the served top k. */
  nearest_missed: number | null;
  /** The same for Chroma's index alone. */
  index_nearest_missed: number | null;
  /** The agent's ready set when measured (readySignature): a change makes it due again. */
  ready_signature: string;
  reason: string | null;
  measured_at: string;
}

export type NewIndexRecall = Omit<IndexRecallRow, "id">;

/** Measurements kept per agent, the newest: enough for a trend, never a growing table. */
export const INDEX_RECALL_HISTORY = 20;

export function insertIndexRecall(m: NewIndexRecall): void {
  const d = db();
  d.transaction(() => {
    d.prepare(
      `INSERT INTO index_recall (agent_id, model, k, queries, served_recall, index_recall, served_exactly,
         nearest_missed, index_nearest_missed, ready_signature, reason, measured_at)
       VALUES (@agent_id, @model, @k, @queries, @served_recall, @index_recall, @served_exactly,
         @nearest_missed, @index_nearest_missed, @ready_signature, @reason, @measured_at)`,
    ).run(m);
    d.prepare(
      `DELETE FROM index_recall WHERE agent_id = ? AND id <= (
         SELECT id FROM index_recall WHERE agent_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    ).run(m.agent_id, m.agent_id, INDEX_RECALL_HISTORY);
  })();
}

export function latestIndexRecall(agentId: number): IndexRecallRow | null {
  return (
    (db().prepare("SELECT * FROM index_recall WHERE agent_id = ? ORDER BY id DESC LIMIT 1").get(agentId) as IndexRecallRow | undefined) ??
    null
  );
}

/** The latest measurement of every agent that has one (Index health). */
export function latestIndexRecalls(): IndexRecallRow[] {
  return db()
    .prepare(
      `SELECT r.* FROM index_recall r
       JOIN (SELECT MAX(id) AS id FROM index_recall GROUP BY agent_id) latest ON latest.id = r.id
       ORDER BY r.agent_id`,
    )
    .all() as IndexRecallRow[];
}

/** An agent's kept measurements, newest first. */
export function indexRecallHistory(agentId: number): IndexRecallRow[] {
  return db().prepare("SELECT * FROM index_recall WHERE agent_id = ? ORDER BY id DESC").all(agentId) as IndexRecallRow[];
}
