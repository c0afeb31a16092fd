import type { Migration } from "./migration";

// Sources (lib/sources/): a sitemap or a list of page URLs an agent's documents are synced from.
export const migration: Migration = {
  sql: `CREATE TABLE sources (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     kind TEXT NOT NULL CHECK (kind IN ('sitemap', 'urls')),
     -- The sitemap's URL, or the page URLs as a JSON array.
     location TEXT NOT NULL,
     on_removed TEXT NOT NULL DEFAULT 'propose' CHECK (on_removed IN ('propose', 'remove')),
     interval_minutes INTEGER,
     created_at TEXT NOT NULL
   );
   CREATE INDEX sources_agent ON sources(agent_id);
   -- A page of a source as last seen: what validates a conditional fetch, and the document it made.
   CREATE TABLE source_pages (
     source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     filename TEXT NOT NULL,
     sha256 TEXT,
     etag TEXT,
     last_modified TEXT,
     fetched_at TEXT,
     state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removal_proposed')),
     -- Why its last fetch failed; null when it succeeded.
     error TEXT,
     PRIMARY KEY (source_id, url)
   ) WITHOUT ROWID;
   CREATE TABLE source_syncs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
     trigger TEXT NOT NULL CHECK (trigger IN ('manual', 'schedule')),
     status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     started_at TEXT NOT NULL,
     finished_at TEXT,
     seen INTEGER NOT NULL DEFAULT 0,
     added INTEGER NOT NULL DEFAULT 0,
     changed INTEGER NOT NULL DEFAULT 0,
     removed INTEGER NOT NULL DEFAULT 0,
     proposed INTEGER NOT NULL DEFAULT 0,
     unchanged INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     -- [{url, reason}] of the pages that failed; error is why the whole sync failed.
     failures TEXT NOT NULL DEFAULT '[]',
     error TEXT
   );
   CREATE INDEX source_syncs_source ON source_syncs(source_id, id);
   ALTER TABLE documents ADD COLUMN source_url TEXT;
   ALTER TABLE documents ADD COLUMN fetched_at TEXT;`,
};
