import type { Migration } from "./migration";

// Ids are never reused (AUTOINCREMENT), so a vector left behind by a deleted agent or
// document can never be taken for a new one's. Tables are rebuilt the way SQLite documents it.
export const migration: Migration = {
  sql: `CREATE TABLE agents_v4 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     tools TEXT NOT NULL DEFAULT '["document_search"]',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   INSERT INTO agents_v4 (id, name, tools, created_at, updated_at) SELECT id, name, tools, created_at, updated_at FROM agents;
   DROP TABLE agents;
   ALTER TABLE agents_v4 RENAME TO agents;
   CREATE TABLE documents_v4 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     type TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     chunk_size INTEGER NOT NULL,
     chunk_overlap INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL DEFAULT 0,
     status TEXT NOT NULL CHECK (status IN ('indexing', 'ready', 'failed')),
     error TEXT,
     text TEXT NOT NULL,
     embedding_model TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   INSERT INTO documents_v4 SELECT id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count,
     status, error, text, embedding_model, created_at, updated_at FROM documents;
   DROP TABLE documents;
   ALTER TABLE documents_v4 RENAME TO documents;
   CREATE INDEX documents_agent ON documents(agent_id, filename);
   CREATE INDEX documents_sha ON documents(agent_id, sha256);
   CREATE INDEX documents_status ON documents(status);
   INSERT INTO sqlite_sequence (name, seq)
     SELECT 'agents', COALESCE(MAX(id), 0) FROM agents WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'agents');
   INSERT INTO sqlite_sequence (name, seq)
     SELECT 'documents', COALESCE(MAX(id), 0) FROM documents WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'documents');
   -- Vectors that must go: a failed or interrupted ingest's, a deleted document's or agent's
   -- (document_id NULL: all of the agent's). Retried with backoff until Chroma confirms.
   CREATE TABLE vector_cleanup (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL,
     document_id INTEGER,
     vectors INTEGER NOT NULL DEFAULT 0,
     reason TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     next_attempt_at TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX vector_cleanup_agent ON vector_cleanup(agent_id, document_id);
   -- Failed documents of earlier versions may still hold vectors whose removal was never retried.
   INSERT INTO vector_cleanup (agent_id, document_id, vectors, reason, next_attempt_at, created_at)
     SELECT agent_id, id, 0, 'failed before the upgrade', updated_at, updated_at FROM documents WHERE status = 'failed';
   -- Bearer tokens for automation; only a hash of each token is kept.
   CREATE TABLE api_tokens (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('viewer', 'editor')),
     token_hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     last_used_at TEXT,
     revoked_at TEXT
   );`,
};
