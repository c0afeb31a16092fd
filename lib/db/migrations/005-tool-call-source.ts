import type { Migration } from "./migration";

// Who searched: the agent through the API, or a person in the inspector (not the agent's call).
export const migration: Migration = {
  sql: `ALTER TABLE tool_calls ADD COLUMN source TEXT NOT NULL DEFAULT 'api';`,
};
