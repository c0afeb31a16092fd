import type { Migration } from "./migration";

// The first schema: agents, their documents and the log of their tool calls.
export const migration: Migration = {
  sql: `CREATE TABLE agents (
     id INTEGER PRIMARY KEY,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     tools TEXT NOT NULL DEFAULT '["document_search"]',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE TABLE documents (
     id INTEGER PRIMARY KEY,
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
   CREATE INDEX documents_agent ON documents(agent_id, filename);
   CREATE INDEX documents_sha ON documents(agent_id, sha256);
   CREATE TABLE tool_calls (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     tool TEXT NOT NULL,
     input TEXT NOT NULL,
     ok INTEGER NOT NULL,
     error TEXT,
     latency_ms REAL NOT NULL,
     result_count INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL
   );
   CREATE INDEX tool_calls_agent ON tool_calls(agent_id, created_at);`,
};
