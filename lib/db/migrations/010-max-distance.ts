import type { Migration } from "./migration";

// The no-match cut (lib/retrieval/cut.ts) with the model whose distances it was set in; what a
// run used, and per pair the distance of the query's closest chunk (to calibrate a cut from).
export const migration: Migration = {
  sql: `ALTER TABLE agents ADD COLUMN max_distance REAL;
   ALTER TABLE agents ADD COLUMN max_distance_model TEXT;
   ALTER TABLE eval_runs ADD COLUMN max_distance REAL;
   ALTER TABLE eval_results ADD COLUMN top_distance REAL;
   ALTER TABLE eval_results ADD COLUMN beyond_cut INTEGER NOT NULL DEFAULT 0;`,
};
