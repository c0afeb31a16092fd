import type Database from "better-sqlite3";

/**
 * The keyword index: one contentless FTS5 table per agent holding the chunks of its ready
 * documents. One table per agent because bm25 weighs a word by how rare it is in the table: in a
 * shared table an agent's keyword ranking would move with what other agents hold. Rows are
 * written and removed by the transactions that make a document ready, retire, delete or fail
 * it, so the index never holds a chunk search cannot show.
 *
 * A chunk leaves the index by FTS5's 'delete' command with the text it was indexed by (kept in
 * its chunks row, which never changes), not by a plain DELETE: a `contentless_delete` table
 * keeps counting a deleted row in the row count and the average length bm25 weighs by, so the
 * ranking drifted with every replaced version. This way the index is a function of the chunks it
 * holds, whatever came and went before: a draft's preview (lib/retrieval/draft-keywords.ts)
 * builds the same index fresh and gets the very figures the agent serves once it is published.
 */

/** The chunk rowid packs document and chunk: document_id * this + chunk_index. */
export const MAX_CHUNKS_PER_DOCUMENT = 1_000_000;

/** What a chunk is indexed by: its table's header, its text, then the questions it answers (indexedText in lib/core/chunking.ts). */
export const INDEXED_TEXT_SQL =
  "COALESCE(chunks.context || char(10), '') || text || COALESCE(char(10) || char(10) || (SELECT group_concat(value, char(10)) FROM json_each(chunks.questions)), '')";

/** The keyword table's definition (without its name). */
export const KEYWORD_TABLE_DEFINITION = "fts5(text, content='', tokenize='porter unicode61')";

export function keywordTable(agentId: number): string {
  if (!Number.isSafeInteger(agentId) || agentId <= 0) throw new Error(`not an agent id: ${agentId}`);
  return `chunks_fts_a${agentId}`;
}

export function ensureKeywordTable(conn: Database.Database, agentId: number): string {
  const table = keywordTable(agentId);
  conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING ${KEYWORD_TABLE_DEFINITION}`);
  return table;
}

export function hasKeywordTable(conn: Database.Database, agentId: number): boolean {
  return !!conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(keywordTable(agentId));
}

/** Adds documents' stored chunks to a keyword table (`table` may name a schema: `scratch.t`). */
export function indexChunksInto(conn: Database.Database, table: string, documentId: number): void {
  conn
    .prepare(
      `INSERT INTO ${table} (rowid, text)
       SELECT document_id * ${MAX_CHUNKS_PER_DOCUMENT} + chunk_index, ${INDEXED_TEXT_SQL} FROM chunks WHERE document_id = ?`,
    )
    .run(documentId);
}

/** Adds a document's stored chunks to its agent's index (the document has just become ready). */
export function indexDocumentChunks(conn: Database.Database, agentId: number, documentId: number): void {
  indexChunksInto(conn, ensureKeywordTable(conn, agentId), documentId);
}

/**
 * Removes a document's chunks from its agent's index, each by the text it was indexed by; a chunk
 * not in the index (a version that never became ready, or one made ready and retired in the same
 * grouped write, before its rows were indexed) is left alone: a 'delete' of a row FTS5 does not
 * hold would corrupt its counts. Run while the chunks rows are still there.
 */
export function unindexDocument(conn: Database.Database, agentId: number, documentId: number): void {
  if (!hasKeywordTable(conn, agentId)) return;
  const table = keywordTable(agentId);
  const first = documentId * MAX_CHUNKS_PER_DOCUMENT;
  const held = conn.prepare(`SELECT id FROM ${table}_docsize WHERE id BETWEEN ? AND ?`).all(first, first + MAX_CHUNKS_PER_DOCUMENT - 1) as {
    id: number;
  }[];
  if (held.length === 0) return;
  conn
    .prepare(
      `INSERT INTO ${table} (${table}, rowid, text)
       SELECT 'delete', document_id * ${MAX_CHUNKS_PER_DOCUMENT} + chunk_index, ${INDEXED_TEXT_SQL}
       FROM chunks WHERE document_id = ? AND document_id * ${MAX_CHUNKS_PER_DOCUMENT} + chunk_index IN (SELECT value FROM json_each(?))`,
    )
    .run(documentId, JSON.stringify(held.map((h) => h.id)));
}

export function dropKeywordTable(conn: Database.Database, agentId: number): void {
  conn.exec(`DROP TABLE IF EXISTS ${keywordTable(agentId)}`);
}

/**
 * A keyword table in the connection's temporary schema holding the agent's ready documents less
 * `leftOut`, plus `extra` (a draft's view: lib/retrieval/draft-keywords.ts), built in one
 * transaction. `name` is unqualified; the table is `temp.<name>`.
 */
export function buildTempKeywordTable(
  conn: Database.Database,
  name: string,
  agentId: number,
  leftOut: Set<number>,
  extra: number[],
): string {
  const table = `temp.${name}`;
  const served = (
    conn.prepare("SELECT id FROM documents WHERE agent_id = ? AND status = 'ready' ORDER BY id").all(agentId) as { id: number }[]
  )
    .map((r) => r.id)
    .filter((id) => !leftOut.has(id));
  conn.transaction(() => {
    conn.exec(`CREATE VIRTUAL TABLE ${table} USING ${KEYWORD_TABLE_DEFINITION}`);
    for (const id of [...served, ...extra]) indexChunksInto(conn, table, id);
  })();
  return table;
}

export function dropTempKeywordTable(conn: Database.Database, table: string): void {
  conn.exec(`DROP TABLE IF EXISTS ${table}`);
}
