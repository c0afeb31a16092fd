import type { Migration } from "./migration";

// Signed-out sessions (by the cookie's jti) stay refused until their cookie would have
// expired; API tokens may expire.
export const migration: Migration = {
  sql: `CREATE TABLE revoked_sessions (
     id TEXT PRIMARY KEY,
     expires_at TEXT NOT NULL
   );
   ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;`,
};
