import type { Migration } from "./migration";

// How the run's queries were weighted (Embedder.queryWeighting); NULL: not weighted.
export const migration: Migration = {
  sql: `ALTER TABLE eval_runs ADD COLUMN query_weighting TEXT;`,
};
