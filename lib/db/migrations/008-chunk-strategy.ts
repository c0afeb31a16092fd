import type { Migration } from "./migration";

// How a document was chunked (lib/core/chunking.ts); documents indexed before there was a choice are fixed windows.
export const migration: Migration = {
  sql: `ALTER TABLE documents ADD COLUMN chunk_strategy TEXT NOT NULL DEFAULT 'fixed';`,
};
