import { fixedWindows } from "./frozen-chunker";
import type { Migration } from "./migration";

// Chunk text lives here, not in Chroma: Chroma holds vectors and the agent/document ids a
// query filters on; a search reads the text of its few hits by primary key. Filled from the
// documents' text by the backfill, as fixed windows (the only chunker there was).
export const migration: Migration = {
  sql: `CREATE TABLE chunks (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     chunk_index INTEGER NOT NULL,
     start INTEGER NOT NULL,
     end INTEGER NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (document_id, chunk_index)
   ) WITHOUT ROWID;
   -- What every search asks about an agent (its ready chunks, models, indexing ones) from the index alone.
   CREATE INDEX documents_agent_status ON documents(agent_id, status, embedding_model, chunk_count);
   -- Query-weighting counts per agent, kept across restarts (lib/retrieval/corpus-stats.ts).
   CREATE TABLE corpus_stats (
     agent_id INTEGER PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     chunks INTEGER NOT NULL,
     docs TEXT NOT NULL,
     counts BLOB NOT NULL,
     updated_at TEXT NOT NULL
   );`,
  backfill: (d) => {
    const insert = d.prepare("INSERT INTO chunks (document_id, chunk_index, start, end, text) VALUES (?, ?, ?, ?, ?)");
    const read = d.prepare("SELECT text, chunk_size, chunk_overlap FROM documents WHERE id = ?");
    // One document in memory at a time (a connection cannot write while it iterates).
    for (const { id } of d.prepare("SELECT id FROM documents").all() as { id: number }[]) {
      const doc = read.get(id) as { text: string; chunk_size: number; chunk_overlap: number };
      for (const c of fixedWindows(doc.text, doc.chunk_size, doc.chunk_overlap)) insert.run(id, c.index, c.start, c.end, c.text);
    }
  },
};
