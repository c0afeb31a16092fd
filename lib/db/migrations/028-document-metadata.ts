import type { Migration } from "./migration";

// Document metadata (lib/db/metadata.ts): the team's own keys of each document version as one
// JSON object (string, number, boolean, date or string-list values); the built-in fields
// (filename, type, source_url, created_at, updated_at) stay the columns they are. Chunks inherit
// their document's metadata through their document id, which every index carries. A labeled
// pair may carry the metadata filter its question was asked with (pairs.filter, JSON; NULL: none);
// a source, the metadata every page it syncs gets (sources.metadata).
export const migration: Migration = {
  // A filter reads every ready document's metadata (and, for built-in fields, its columns): the
  // index holds them, so a filter never reads a row, whose text comes before them.
  sql: `ALTER TABLE documents ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
   CREATE INDEX documents_filter ON documents(agent_id, status, chunk_count, metadata, filename, type, source_url, created_at, updated_at);
   ALTER TABLE pairs ADD COLUMN filter TEXT;
   ALTER TABLE sources ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';`,
};
