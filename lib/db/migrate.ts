import type Database from "better-sqlite3";
import { STEPS } from "./migrations";

/**
 * Moves a database forward to the latest schema (lib/db/migrations/), one version per
 * transaction: the version's SQL, then its backfill, then user_version.
 */
export function migrate(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version < STEPS.length) {
    // Rebuilding a table that others reference needs foreign keys off while it runs.
    db.pragma("foreign_keys = OFF");
    try {
      for (let v = version; v < STEPS.length; v++) {
        db.transaction(() => {
          db.exec(STEPS[v].sql);
          STEPS[v].backfill?.(db);
          const broken = db.pragma("foreign_key_check") as unknown[];
          if (broken.length > 0) throw new Error(`schema migration ${v + 1} left ${broken.length} broken references`);
          db.pragma(`user_version = ${v + 1}`);
        })();
      }
    } finally {
      db.pragma("foreign_keys = ON");
    }
  }
}
