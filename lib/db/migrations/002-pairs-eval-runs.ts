import type { Migration } from "./migration";

// Labeled pairs name the expected document by filename, so they survive a re-upload.
export const migration: Migration = {
  sql: `CREATE TABLE pairs (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     query TEXT NOT NULL,
     expected_filename TEXT NOT NULL,
     note TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     UNIQUE (agent_id, query, expected_filename)
   );
   CREATE TABLE eval_runs (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     k INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     error TEXT,
     done_pairs INTEGER NOT NULL DEFAULT 0,
     n_pairs INTEGER NOT NULL,
     embedding_model TEXT NOT NULL,
     document_count INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL,
     chunk_settings TEXT NOT NULL,
     recall_at_k TEXT,
     mrr REAL,
     created_at TEXT NOT NULL,
     finished_at TEXT
   );
   CREATE INDEX eval_runs_agent ON eval_runs(agent_id, id);
   CREATE TABLE eval_results (
     run_id INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
     pair_id INTEGER,
     query TEXT NOT NULL,
     expected TEXT NOT NULL,
     document_id INTEGER,
     rank INTEGER,
     best_distance REAL,
     missing INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (run_id, query, expected)
   );`,
};
