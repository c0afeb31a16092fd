import "server-only";
import { db } from "../db/client";
import { hasKeywordTable, keywordTable, MAX_CHUNKS_PER_DOCUMENT } from "../db/keyword-index";

/**
 * The keyword side of retrieval: SQLite FTS5 bm25 over the agent's own index of its ready
 * chunks (lib/db/keyword-index.ts), so a word's rarity is counted among that agent's chunks only.
 * A user's text is never parsed as FTS syntax: it is cut into words, each quoted, joined with OR.
 */

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
  if (!terms || !hasKeywordTable(db(), agentId)) return [];
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
