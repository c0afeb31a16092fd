import type { Migration } from "./migration";

// Drafts (lib/db/drafts.ts): changes staged apart from what an agent serves until published.
// A draft's document versions are documents rows with status 'draft' and their draft_id, their
// vectors written as any version's, in no keyword index until published; base_id is the served
// version each one replaces (NULL: a new name). draft_removals stages deletions of served
// documents; drafts.settings the agent's cut and retrieval mode as the draft would set them.
// The documents table is rebuilt the way SQLite documents it, for its status CHECK to take
// 'draft'; its AUTOINCREMENT counter is kept, so ids are still never reused.
export const migration: Migration = {
  sql: `CREATE TABLE drafts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     settings TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX drafts_agent ON drafts(agent_id);
   CREATE TABLE draft_removals (
     draft_id INTEGER NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     base_id INTEGER NOT NULL,
     PRIMARY KEY (draft_id, filename)
   );
   CREATE TEMP TABLE documents_seq AS SELECT seq FROM sqlite_sequence WHERE name = 'documents';
   CREATE TABLE documents_v26 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     type TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     chunk_size INTEGER NOT NULL,
     chunk_overlap INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL DEFAULT 0,
     status TEXT NOT NULL CHECK (status IN ('indexing', 'ready', 'failed', 'draft')),
     error TEXT,
     text TEXT NOT NULL,
     embedding_model TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     chunk_strategy TEXT NOT NULL DEFAULT 'fixed',
     source_url TEXT,
     fetched_at TEXT,
     enabled INTEGER NOT NULL DEFAULT 1,
     removed TEXT,
     undo TEXT,
     curation_note TEXT,
     draft_id INTEGER REFERENCES drafts(id),
     base_id INTEGER
   );
   INSERT INTO documents_v26 (id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count, status, error, text,
       embedding_model, created_at, updated_at, chunk_strategy, source_url, fetched_at, enabled, removed, undo, curation_note)
     SELECT id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count, status, error, text,
       embedding_model, created_at, updated_at, chunk_strategy, source_url, fetched_at, enabled, removed, undo, curation_note FROM documents;
   DROP TABLE documents;
   ALTER TABLE documents_v26 RENAME TO documents;
   CREATE INDEX documents_agent ON documents(agent_id, filename);
   CREATE INDEX documents_sha ON documents(agent_id, sha256);
   CREATE INDEX documents_status ON documents(status);
   CREATE INDEX documents_agent_status ON documents(agent_id, status, embedding_model, chunk_count);
   CREATE INDEX documents_draft ON documents(draft_id) WHERE draft_id IS NOT NULL;
   INSERT OR IGNORE INTO sqlite_sequence (name, seq) SELECT 'documents', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'documents');
   UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM temp.documents_seq), 0), (SELECT COALESCE(MAX(id), 0) FROM documents))
     WHERE name = 'documents';
   DROP TABLE temp.documents_seq;`,
};
