import type { Migration } from "./migration";

// Generated questions a person rejected, or reworded before accepting (lib/evaluation/generate/):
// the next generation does not propose them again.
export const migration: Migration = {
  sql: `CREATE TABLE dismissed_questions (
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     expected_filename TEXT NOT NULL,
     dismissed_at TEXT NOT NULL,
     PRIMARY KEY (agent_id, key, expected_filename)
   ) WITHOUT ROWID;`,
};
