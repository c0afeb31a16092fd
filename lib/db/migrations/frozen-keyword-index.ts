import type Database from "better-sqlite3";

// A copy of lib/db/keyword-index.ts as migration 15 first ran it: the live index module may change.

/** The chunk rowid packs document and chunk: document_id * this + chunk_index. */
const MAX_CHUNKS_PER_DOCUMENT = 1_000_000;

function keywordTable(agentId: number): string {
  if (!Number.isSafeInteger(agentId) || agentId <= 0) throw new Error(`not an agent id: ${agentId}`);
  return `chunks_fts_a${agentId}`;
}

function ensureKeywordTable(conn: Database.Database, agentId: number): string {
  const table = keywordTable(agentId);
  conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(text, content='', contentless_delete=1, tokenize='porter unicode61')`);
  return table;
}

/** Adds a document's stored chunks to its agent's index. */
function indexDocumentChunks(conn: Database.Database, agentId: number, documentId: number): void {
  const table = ensureKeywordTable(conn, agentId);
  conn
    .prepare(
      `INSERT INTO ${table} (rowid, text) SELECT document_id * ${MAX_CHUNKS_PER_DOCUMENT} + chunk_index, text FROM chunks WHERE document_id = ?`,
    )
    .run(documentId);
}

/** Builds every agent's index from the stored chunks of its ready documents. */
export function rebuildKeywordIndexes(conn: Database.Database): void {
  const docs = conn.prepare("SELECT id, agent_id FROM documents WHERE status = 'ready' ORDER BY agent_id, id").all() as {
    id: number;
    agent_id: number;
  }[];
  for (const { id, agent_id } of docs) indexDocumentChunks(conn, agent_id, id);
}
