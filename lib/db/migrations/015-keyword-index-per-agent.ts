import { rebuildKeywordIndexes } from "./frozen-keyword-index";
import type { Migration } from "./migration";

// The keyword index becomes one table per agent, written by the ingest transactions
// (lib/db/keyword-index.ts): bm25 then counts a word's rarity over the agent's own chunks.
export const migration: Migration = {
  sql: `DROP TRIGGER chunks_fts_insert;
   DROP TRIGGER chunks_fts_delete;
   DROP TABLE chunks_fts;`,
  backfill: rebuildKeywordIndexes,
};
