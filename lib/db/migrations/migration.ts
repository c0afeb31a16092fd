import type Database from "better-sqlite3";

/**
 * One schema version: its SQL, and the data move it needs beyond SQL, run in the same
 * transaction right after the SQL. A shipped migration is never edited, and imports no live app
 * code (only its own frozen copies), so what it does to an old database never changes.
 */
export interface Migration {
  sql: string;
  backfill?: (db: Database.Database) => void;
}
