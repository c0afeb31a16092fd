import "server-only";
import { db } from "../db/client";

/**
 * The keyword side of retrieval: SQLite FTS5 over every chunk (table `chunks_fts`, kept in step
 * with `chunks` by triggers), ranked by bm25. Queries only ever match the agent's own chunks of
 * ready documents of the given model, and a user's text is never parsed as FTS syntax: it is
 * cut into words, each quoted, joined with OR.
 */

/** The chunk rowid packs document and chunk: document_id * this + chunk_index. */
export const MAX_CHUNKS_PER_DOCUMENT = 1_000_000;
/** The most query words sent to FTS5; more add time and little else. */
const MAX_TERMS = 32;

export interface KeywordHit {
  document_id: number;
  chunk_index: number;
  /** SQLite's bm25: lower (more negative) is a better match. */
  bm25: number;
}

/** The query's words, quoted for FTS5, or null when it has none (only punctuation, say). */
export function ftsTerms(query: string): string | null {
  const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []))].slice(0, MAX_TERMS);
  return words.length ? words.map((w) => `"${w}"`).join(" OR ") : null;
}

/** The agent's best keyword matches for a query, best first. */
export function keywordRanking(agentId: number, model: string, query: string, limit: number): KeywordHit[] {
  const terms = ftsTerms(query);
  if (!terms) return [];
  const rows = db()
    .prepare(
      `SELECT f.rowid AS id, bm25(chunks_fts, 0.0, 1.0) AS bm25
       FROM chunks_fts f JOIN documents d ON d.id = f.rowid / ${MAX_CHUNKS_PER_DOCUMENT}
       WHERE chunks_fts MATCH ? AND d.agent_id = ? AND d.status = 'ready' AND d.embedding_model = ?
       ORDER BY bm25 LIMIT ?`,
    )
    .all(`agent:a${agentId} AND (${terms})`, agentId, model, limit) as { id: number; bm25: number }[];
  return rows.map((r) => ({ document_id: Math.floor(r.id / MAX_CHUNKS_PER_DOCUMENT), chunk_index: r.id % MAX_CHUNKS_PER_DOCUMENT, bm25: r.bm25 }));
}
