import type { Migration } from "./migration";

// The exact ranking's copy of every chunk vector (lib/db/chunk-vectors.ts), a run of up to 64
// chunks per row, written as ingest writes Chroma and gone with the document's row: a search
// ranks exactly what its transaction made ready. Documents indexed before it are copied from
// Chroma after start-up (lib/index-upkeep/exact-copies.ts).
export const migration: Migration = {
  sql: `CREATE TABLE chunk_vectors (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     first_chunk INTEGER NOT NULL,
     count INTEGER NOT NULL,
     dimension INTEGER NOT NULL,
     vectors BLOB NOT NULL,
     PRIMARY KEY (document_id, model, first_chunk)
   );`,
};
