import type { Migration } from "./migration";

// The keyword side of retrieval (lib/retrieval/keyword.ts): every chunk in an FTS5 index, kept
// in step with the chunks table by triggers, so ingest, re-index and delete stay all or
// nothing. Contentless (the text is in chunks already); the rowid is
// document_id * 1,000,000 + chunk_index, and the agent is an indexed token a query must match.
export const migration: Migration = {
  sql: `CREATE VIRTUAL TABLE chunks_fts USING fts5(agent, text, content='', contentless_delete=1, tokenize='porter unicode61');
   CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
     INSERT INTO chunks_fts (rowid, agent, text)
       VALUES (new.document_id * 1000000 + new.chunk_index, 'a' || (SELECT agent_id FROM documents WHERE id = new.document_id), new.text);
   END;
   CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
     DELETE FROM chunks_fts WHERE rowid = old.document_id * 1000000 + old.chunk_index;
   END;
   INSERT INTO chunks_fts (rowid, agent, text)
     SELECT c.document_id * 1000000 + c.chunk_index, 'a' || d.agent_id, c.text FROM chunks c JOIN documents d ON d.id = c.document_id;
   ALTER TABLE agents ADD COLUMN retrieval_mode TEXT NOT NULL DEFAULT 'vector';`,
};
