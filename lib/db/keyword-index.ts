import type Database from "better-sqlite3";

/**
 * The keyword index: one contentless FTS5 table per agent holding the chunks of its ready
 * documents. One table per agent because bm25 weighs a word by how rare it is in the table: in a
 * shared table an agent's keyword ranking would move with what other agents hold. Rows are
 * written and removed by the transactions that make a document ready, retire, delete or fail
 * it, so the index never holds a chunk search cannot show.
 */

/** The chunk rowid packs document and chunk: document_id * this + chunk_index. */
export const MAX_CHUNKS_PER_DOCUMENT = 1_000_000;

export function keywordTable(agentId: number): string {
  if (!Number.isSafeInteger(agentId) || agentId <= 0) throw new Error(`not an agent id: ${agentId}`);
  return `chunks_fts_a${agentId}`;
}

export function ensureKeywordTable(conn: Database.Database, agentId: number): string {
  const table = keywordTable(agentId);
  conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(text, content='', contentless_delete=1, tokenize='porter unicode61')`);
  return table;
}

export function hasKeywordTable(conn: Database.Database, agentId: number): boolean {
  return !!conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(keywordTable(agentId));
}

/** Adds a document's stored chunks to its agent's index (the document has just become ready). */
export function indexDocumentChunks(conn: Database.Database, agentId: number, documentId: number): void {
  const table = ensureKeywordTable(conn, agentId);
  conn
    .prepare(
      // What the chunk is indexed by: its text, then the questions it answers (indexedText in lib/core/chunking.ts).
      `INSERT INTO ${table} (rowid, text)
       SELECT document_id * ${MAX_CHUNKS_PER_DOCUMENT} + chunk_index,
         text || COALESCE(char(10) || char(10) || (SELECT group_concat(value, char(10)) FROM json_each(chunks.questions)), '')
       FROM chunks WHERE document_id = ?`,
    )
    .run(documentId);
}

/** Removes a document's chunks from its agent's index; nothing when they are not there. */
export function unindexDocument(conn: Database.Database, agentId: number, documentId: number): void {
  if (!hasKeywordTable(conn, agentId)) return;
  const first = documentId * MAX_CHUNKS_PER_DOCUMENT;
  conn.prepare(`DELETE FROM ${keywordTable(agentId)} WHERE rowid BETWEEN ? AND ?`).run(first, first + MAX_CHUNKS_PER_DOCUMENT - 1);
}

export function dropKeywordTable(conn: Database.Database, agentId: number): void {
  conn.exec(`DROP TABLE IF EXISTS ${keywordTable(agentId)}`);
}

/** Builds every agent's index from the stored chunks of its ready documents (schema upgrade). */
export function rebuildKeywordIndexes(conn: Database.Database): void {
  const docs = conn.prepare("SELECT id, agent_id FROM documents WHERE status = 'ready' ORDER BY agent_id, id").all() as {
    id: number;
    agent_id: number;
  }[];
  for (const { id, agent_id } of docs) indexDocumentChunks(conn, agent_id, id);
}
