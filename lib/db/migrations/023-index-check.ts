import type { Migration } from "./migration";

// The index check after a Chroma crash (lib/db/index-check.ts): the newest writes of chunk
// vectors, the documents suspected of being damaged (searches rank their chunks exactly until
// they are checked), and the state of the check that outlives the process.
export const migration: Migration = {
  sql: `CREATE TABLE vector_writes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     collection TEXT NOT NULL,
     agent_id INTEGER NOT NULL,
     document_id INTEGER NOT NULL,
     chunks INTEGER NOT NULL
   );
   CREATE TABLE suspect_documents (
     document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
     agent_id INTEGER NOT NULL,
     model TEXT NOT NULL,
     since TEXT NOT NULL
   );
   CREATE INDEX suspect_documents_agent ON suspect_documents(agent_id, model);
   CREATE TABLE index_check (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     suspect_writes_until TEXT,
     followed_collection TEXT,
     full_model TEXT,
     full_below INTEGER,
     full_checked INTEGER NOT NULL DEFAULT 0,
     full_total INTEGER NOT NULL DEFAULT 0,
     full_started_at TEXT,
     full_finished_at TEXT
   );
   INSERT INTO index_check (id) VALUES (1);`,
};
