import type Database from "better-sqlite3";
import type { Migration } from "./migration";

// The keyword tables are made again without contentless_delete: such a table keeps counting a
// deleted row in the row count and average length bm25 weighs by, so every replaced version
// moved the agent's keyword ranking. Chunks now leave the index by FTS5's 'delete' command with
// the text they were indexed by (lib/db/keyword-index.ts). A frozen copy of the indexing, as
// this version runs it: the live module may change.

const MAX_CHUNKS_PER_DOCUMENT = 1_000_000;
const INDEXED_TEXT =
  "text || COALESCE(char(10) || char(10) || (SELECT group_concat(value, char(10)) FROM json_each(chunks.questions)), '')";

function rebuild(conn: Database.Database): void {
  const tables = conn
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'chunks_fts_a[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
    .all() as { name: string }[];
  for (const { name } of tables) conn.exec(`DROP TABLE ${name}`);
  const docs = conn.prepare("SELECT id, agent_id FROM documents WHERE status = 'ready' ORDER BY agent_id, id").all() as {
    id: number;
    agent_id: number;
  }[];
  for (const { id, agent_id } of docs) {
    const table = `chunks_fts_a${agent_id}`;
    conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(text, content='', tokenize='porter unicode61')`);
    conn
      .prepare(
        `INSERT INTO ${table} (rowid, text) SELECT document_id * ${MAX_CHUNKS_PER_DOCUMENT} + chunk_index, ${INDEXED_TEXT} FROM chunks WHERE document_id = ?`,
      )
      .run(id);
  }
}

export const migration: Migration = { sql: "SELECT 1;", backfill: rebuild };
