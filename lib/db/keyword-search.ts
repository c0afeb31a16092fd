import "server-only";
import { db } from "./client";
import { hasKeywordTable, keywordTable, MAX_CHUNKS_PER_DOCUMENT } from "./keyword-index";

export interface KeywordHit {
  document_id: number;
  chunk_index: number;
  /** SQLite's bm25: lower (more negative) is a better match. */
  bm25: number;
}

/** The agent's best matches of FTS5 `terms` (already quoted) among its ready chunks of `model`, best first. */
export function keywordMatches(agentId: number, model: string, terms: string, limit: number): KeywordHit[] {
  if (!hasKeywordTable(db(), agentId)) return [];
  const table = keywordTable(agentId);
  // The index holds ready chunks only; the join keeps a document of another model out.
  const rows = db()
    .prepare(
      `SELECT f.rowid AS id, bm25(${table}) AS bm25
       FROM ${table} f JOIN documents d ON d.id = f.rowid / ${MAX_CHUNKS_PER_DOCUMENT}
       WHERE ${table} MATCH ? AND d.agent_id = ? AND d.status = 'ready' AND d.embedding_model = ?
       ORDER BY bm25 LIMIT ?`,
    )
    .all(terms, agentId, model, limit) as { id: number; bm25: number }[];
  return rows.map((r) => ({ document_id: Math.floor(r.id / MAX_CHUNKS_PER_DOCUMENT), chunk_index: r.id % MAX_CHUNKS_PER_DOCUMENT, bm25: r.bm25 }));
}
