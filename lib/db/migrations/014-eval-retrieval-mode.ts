import type { Migration } from "./migration";

// The mode a run ranked in, so runs of the three modes can be compared.
export const migration: Migration = {
  sql: `ALTER TABLE eval_runs ADD COLUMN retrieval_mode TEXT NOT NULL DEFAULT 'vector';`,
};
