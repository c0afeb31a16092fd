import type { Migration } from "./migration";

// A removal whose vectors may still be on their way to Chroma (a write that timed out, a server
// that stopped mid-write) is checked again after it succeeded: removed_at is when it last did.
export const migration: Migration = {
  sql: `ALTER TABLE vector_cleanup ADD COLUMN late_writes INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE vector_cleanup ADD COLUMN removed_at TEXT;`,
};
