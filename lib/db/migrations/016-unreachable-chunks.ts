import type { Migration } from "./migration";

// Chunks Chroma stores but its index cannot return (lib/db/unreachable.ts): searches rank them
// by their exact distance. They go with their document.
export const migration: Migration = {
  sql: `CREATE TABLE unreachable_chunks (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     chunk_index INTEGER NOT NULL,
     agent_id INTEGER NOT NULL,
     found_at TEXT NOT NULL,
     PRIMARY KEY (document_id, chunk_index)
   );
   CREATE INDEX unreachable_chunks_agent ON unreachable_chunks(agent_id);`,
};
