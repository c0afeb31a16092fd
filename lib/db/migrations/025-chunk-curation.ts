import type { Migration } from "./migration";

// Chunk curation (lib/curation/): a change to a document's chunks writes a new version of the
// document, as a re-chunk does, so both indexes and the exact copy stay whole under a crash.
// - chunks.uid: the chunk's id when it was carried from an earlier version (NULL: its own,
//   document_id * 1,000,000 + chunk_index); chunks.position: its place among all the version's
//   chunks, on and off (NULL: chunk_index); chunks.questions: the questions it answers (a JSON
//   array, indexed with its text); chunks.original: the text before it was edited (NULL: not
//   edited, '': written by hand).
// - chunks_off: the chunks of a version that are switched off (or of a document switched off):
//   kept with the version, in no index (enabled: the chunk itself is on, its document off).
// - documents.enabled, documents.removed (JSON: the original texts of deleted chunks),
//   documents.undo (JSON: the chunks of the version a curation change replaced),
//   documents.curation_note (what a replace or re-chunk could not carry over).
// - curation_log: every change, by whom, with the version it replaced.
export const migration: Migration = {
  sql: `ALTER TABLE chunks ADD COLUMN uid INTEGER;
   ALTER TABLE chunks ADD COLUMN position INTEGER;
   ALTER TABLE chunks ADD COLUMN questions TEXT;
   ALTER TABLE chunks ADD COLUMN original TEXT;
   CREATE INDEX chunks_uid ON chunks(uid) WHERE uid IS NOT NULL;
   CREATE TABLE chunks_off (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     position INTEGER NOT NULL,
     uid INTEGER NOT NULL,
     start INTEGER NOT NULL,
     end INTEGER NOT NULL,
     text TEXT NOT NULL,
     questions TEXT,
     original TEXT,
     enabled INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (document_id, position)
   ) WITHOUT ROWID;
   CREATE INDEX chunks_off_uid ON chunks_off(uid);
   ALTER TABLE documents ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE documents ADD COLUMN removed TEXT;
   ALTER TABLE documents ADD COLUMN undo TEXT;
   ALTER TABLE documents ADD COLUMN curation_note TEXT;
   CREATE TABLE curation_log (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     document_id INTEGER NOT NULL,
     replaced_id INTEGER,
     chunk_id INTEGER,
     action TEXT NOT NULL,
     detail TEXT,
     actor TEXT,
     at TEXT NOT NULL
   );
   CREATE INDEX curation_log_agent ON curation_log(agent_id, id);
   CREATE INDEX curation_log_replaced ON curation_log(replaced_id);`,
};
