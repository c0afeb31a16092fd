import type { Migration } from "./migration";

// A PDF's pages (lib/core/pages.ts). `documents.page_starts`: a JSON array of where each page starts
// in the document's text, in page order; NULL for a document without pages. `page_first` and
// `page_last` on a chunk: the pages its characters lie on, NULL without pages (or for a chunk
// written by hand). `document_files`: an uploaded PDF's own bytes, once per agent and content,
// shared by its versions, and dropped with the last document of the agent that has that content.
// Documents stored before it have no pages: their files were not kept; uploading the PDF again
// (the same file is recognised and completed) keeps the file, and a re-upload after deleting the
// document gives its chunks their pages.
export const migration: Migration = {
  sql: `ALTER TABLE documents ADD COLUMN page_starts TEXT;
   ALTER TABLE chunks ADD COLUMN page_first INTEGER;
   ALTER TABLE chunks ADD COLUMN page_last INTEGER;
   ALTER TABLE chunks_off ADD COLUMN page_first INTEGER;
   ALTER TABLE chunks_off ADD COLUMN page_last INTEGER;
   CREATE TABLE document_files (
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     sha256 TEXT NOT NULL,
     type TEXT NOT NULL,
     bytes BLOB NOT NULL,
     PRIMARY KEY (agent_id, sha256)
   );
   CREATE TRIGGER document_files_unused AFTER DELETE ON documents
   WHEN NOT EXISTS (SELECT 1 FROM documents WHERE agent_id = OLD.agent_id AND sha256 = OLD.sha256)
   BEGIN
     DELETE FROM document_files WHERE agent_id = OLD.agent_id AND sha256 = OLD.sha256;
   END;`,
};
