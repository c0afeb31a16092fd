import type { Migration } from "./migration";

// What an ask ended in ("answered", "refused: no_match", ...), so refusals can be listed.
export const migration: Migration = {
  sql: `ALTER TABLE tool_calls ADD COLUMN outcome TEXT;
   CREATE INDEX tool_calls_outcome ON tool_calls(agent_id, tool, outcome);`,
};
