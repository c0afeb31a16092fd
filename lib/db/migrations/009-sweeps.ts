import type { Migration } from "./migration";

// Chunk-settings sweeps (lib/evaluation/sweep.ts): rows and apply progress as JSON, rewritten as they move.
export const migration: Migration = {
  sql: `CREATE TABLE sweeps (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     k INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     error TEXT,
     n_pairs INTEGER NOT NULL,
     n_documents INTEGER NOT NULL,
     progress_done INTEGER NOT NULL DEFAULT 0,
     progress_total INTEGER NOT NULL,
     rows TEXT NOT NULL,
     apply TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX sweeps_agent ON sweeps(agent_id, id);`,
};
