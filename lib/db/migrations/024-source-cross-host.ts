import type { Migration } from "./migration";

// Sources: whether sitemap entries on other (public) hosts are fetched, and why a sync read less than its whole source.
export const migration: Migration = {
  sql: `ALTER TABLE sources ADD COLUMN cross_host INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE source_syncs ADD COLUMN note TEXT;`,
};
