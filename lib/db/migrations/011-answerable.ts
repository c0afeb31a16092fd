import type { Migration } from "./migration";

// A pair with no expected document (pairs.expected_filename ''): a question that should get no answer.
export const migration: Migration = {
  sql: `ALTER TABLE eval_results ADD COLUMN answerable INTEGER NOT NULL DEFAULT 1;`,
};
