import type { Migration } from "./migration";

// The map of an agent's chunks and questions (lib/map/): one projection per agent, the newest,
// with the stamp of the content it was computed from (its ready chunks and question groups), so a
// change is seen by comparing stamps and the old map is served, marked stale, while a new one is
// computed. Chunks are (document id, chunk index) pairs and their points (x, y) as packed int32
// and float32 arrays in the same order; questions are group ids and their points alike.
export const migration: Migration = {
  sql: `CREATE TABLE agent_maps (
     agent_id INTEGER PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     stamp TEXT NOT NULL,
     seed INTEGER NOT NULL,
     chunk_documents BLOB NOT NULL,
     chunk_indexes BLOB NOT NULL,
     chunk_points BLOB NOT NULL,
     question_groups BLOB NOT NULL,
     question_points BLOB NOT NULL,
     left_out INTEGER NOT NULL,
     took_ms INTEGER NOT NULL,
     computed_at TEXT NOT NULL
   );`,
};
