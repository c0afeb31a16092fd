import "server-only";
import { db } from "./client";
import { hasKeywordTable, keywordTable, MAX_CHUNKS_PER_DOCUMENT } from "./keyword-index";

export interface KeywordHit {
  document_id: number;
  chunk_index: number;
  /** SQLite's bm25: lower (more negative) is a better match. */
  bm25: number;
}

/**
 * The agent's best matches of FTS5 `terms` (already quoted) among its ready chunks of `model`,
 * best first (ties by chunk). The agent's index holds its ready chunks only, so the matches are
 * ranked on the index alone and their documents checked afterwards: joining every match to its
 * document doubled the time when common words matched most of a large agent (261,000 of 333,000
 * chunks: 514 ms against 250, docs/performance.md). When a document of the first `limit` fails
 * the check (another model while the agent is re-embedded, or a change racing the read), the
 * ranking is read again with the check in it, so the answer is the same either way.
 */
export function keywordMatches(agentId: number, model: string, terms: string, limit: number, only?: number[]): KeywordHit[] {
  if (!hasKeywordTable(db(), agentId)) return [];
  const table = keywordTable(agentId);
  const narrow = onlyDocuments(only);
  const first = db()
    .prepare(
      `SELECT f.rowid AS id, bm25(${table}) AS bm25 FROM ${table} f WHERE ${table} MATCH ? ${narrow.sql} ORDER BY bm25, f.rowid LIMIT ?`,
    )
    .all(terms, ...narrow.params, limit) as { id: number; bm25: number }[];
  const documents = [...new Set(first.map((r) => documentOf(r.id)))];
  const ok = new Set(
    (
      db()
        .prepare(
          `SELECT id FROM documents WHERE id IN (SELECT value FROM json_each(?)) AND agent_id = ? AND status = 'ready' AND embedding_model = ?`,
        )
        .all(JSON.stringify(documents), agentId, model) as { id: number }[]
    ).map((r) => r.id),
  );
  const rows =
    ok.size === documents.length
      ? first
      : (db()
          .prepare(
            `SELECT f.rowid AS id, bm25(${table}) AS bm25
             FROM ${table} f JOIN documents d ON d.id = f.rowid / ${MAX_CHUNKS_PER_DOCUMENT}
             WHERE ${table} MATCH ? AND d.agent_id = ? AND d.status = 'ready' AND d.embedding_model = ? ${narrow.sql}
             ORDER BY bm25, f.rowid LIMIT ?`,
          )
          .all(terms, agentId, model, ...narrow.params, limit) as { id: number; bm25: number }[]);
  return rows.map((r) => ({ document_id: documentOf(r.id), chunk_index: r.id % MAX_CHUNKS_PER_DOCUMENT, bm25: r.bm25 }));
}

const documentOf = (rowid: number) => Math.floor(rowid / MAX_CHUNKS_PER_DOCUMENT);

/**
 * Whether the terms match more than `cap` of the agent's indexed chunks, read without scoring
 * them: stops at the cap (ranking them by bm25 scores every match, about 250 ms for 261,000).
 */
export function keywordMatchesOver(agentId: number, terms: string, cap: number): boolean {
  if (!hasKeywordTable(db(), agentId)) return false;
  const table = keywordTable(agentId);
  const row = db()
    .prepare(`SELECT count(*) AS n FROM (SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`)
    .get(terms, cap + 1) as { n: number };
  return row.n > cap;
}

/**
 * A filtered read's condition on the matches: their document among `only` (the rowid holds it).
 * bm25 is still counted over the whole index, so a match scores the same filtered or not.
 */
function onlyDocuments(only: number[] | undefined): { sql: string; params: string[] } {
  return only
    ? { sql: `AND f.rowid / ${MAX_CHUNKS_PER_DOCUMENT} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(only)] }
    : { sql: "", params: [] };
}

/**
 * The same over a table of the temporary schema that holds a draft's view of the agent
 * (lib/retrieval/draft-keywords.ts): every chunk in it is one the view shows, so only the model
 * is checked, reading further while matches of another model crowd the first `limit` out.
 */
export function keywordMatchesIn(table: string, model: string, terms: string, limit: number, only?: number[]): KeywordHit[] {
  const name = table.slice(table.indexOf(".") + 1);
  const narrow = onlyDocuments(only);
  for (let n = limit; ; n *= 2) {
    const rows = db()
      .prepare(
        `SELECT f.rowid AS id, bm25(${name}) AS bm25 FROM ${table} f WHERE ${name} MATCH ? ${narrow.sql} ORDER BY bm25, f.rowid LIMIT ?`,
      )
      .all(terms, ...narrow.params, n) as { id: number; bm25: number }[];
    // The documents of the matches checked in one statement, not one per match.
    const ofModel = new Set(
      (
        db()
          .prepare("SELECT id FROM documents WHERE id IN (SELECT value FROM json_each(?)) AND embedding_model = ?")
          .all(JSON.stringify([...new Set(rows.map((r) => documentOf(r.id)))]), model) as { id: number }[]
      ).map((r) => r.id),
    );
    const kept = rows.filter((r) => ofModel.has(documentOf(r.id)));
    if (kept.length >= limit || rows.length < n)
      return kept
        .slice(0, limit)
        .map((r) => ({ document_id: documentOf(r.id), chunk_index: r.id % MAX_CHUNKS_PER_DOCUMENT, bm25: r.bm25 }));
  }
}
