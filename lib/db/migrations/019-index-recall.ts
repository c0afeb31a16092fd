import type { Migration } from "./migration";

// The index-recall monitor's measurements (lib/db/index-recall.ts): the served ranking and
// Chroma's index alone against the exact one, the newest few per agent.
export const migration: Migration = {
  sql: `CREATE TABLE index_recall (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     k INTEGER NOT NULL,
     queries INTEGER NOT NULL,
     served_recall REAL,
     index_recall REAL,
     served_exactly INTEGER,
     nearest_missed INTEGER,
     index_nearest_missed INTEGER,
     ready_signature TEXT NOT NULL,
     reason TEXT,
     measured_at TEXT NOT NULL
   );
   CREATE INDEX index_recall_agent ON index_recall(agent_id, id);`,
};
