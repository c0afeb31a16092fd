import type { Migration } from "./migration";

// A chunk's context (lib/core/tables.ts): the header line(s) of a table whose rows the chunk holds
// without them, indexed before its text (embedded and in the keyword index) and shown above it;
// NULL: none. Chunks stored before it keep none, as their vectors and keyword rows were made from
// their text alone; a re-chunk (for HTML and Word, whose tables were stored flattened, the file
// deleted and uploaded again) gives the chunks of a table their header.
export const migration: Migration = {
  sql: `ALTER TABLE chunks ADD COLUMN context TEXT;
   ALTER TABLE chunks_off ADD COLUMN context TEXT;`,
};
