import type { Migration } from "./migration";

// Coverage (lib/questions/coverage.ts): each result an agent's own call returned (its searches
// and asks, source 'api'; the inspector's and evaluations' traffic left out), made from the
// call's retrieval trace as the call is logged (a trigger, so no writer can forget it) and, here,
// from the calls already logged: `retrievals` one row per chunk returned, at its rank;
// `retrieved_documents` one row per document name a call returned, at the best rank of its chunks
// (what the per-document counts read, without grouping every chunk row by call). Rows go with
// their call when the log is pruned. A document's history is kept under its name, so a replaced
// document keeps it; a document deleted (no newer version of its name left, served or staged)
// takes its name's history with it.
const CHUNKS_OF = (call: string, from = "") => `SELECT ${call}.id, ${call}.agent_id, json_extract(r.value, '$.document_id'),
       json_extract(r.value, '$.chunk_index'), json_extract(r.value, '$.filename'), CAST(r.key AS INTEGER) + 1, ${call}.created_at
     FROM ${from}json_each(${call}.retrieval, '$.results') r`;
const NAMES_OF = (call: string, from = "") => `SELECT ${call}.id, ${call}.agent_id, json_extract(r.value, '$.filename'),
       MIN(CAST(r.key AS INTEGER) + 1), ${call}.created_at
     FROM ${from}json_each(${call}.retrieval, '$.results') r`;
const API = (call: string) => `${call}.source = 'api' AND ${call}.retrieval IS NOT NULL`;

export const migration: Migration = {
  sql: `CREATE TABLE retrievals (
     call_id INTEGER NOT NULL REFERENCES tool_calls(id) ON DELETE CASCADE,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     document_id INTEGER NOT NULL,
     chunk_index INTEGER NOT NULL,
     filename TEXT NOT NULL,
     rank INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX retrievals_call ON retrievals(call_id);
   CREATE INDEX retrievals_name ON retrievals(agent_id, filename);
   CREATE INDEX retrievals_chunk ON retrievals(agent_id, document_id, chunk_index, created_at, rank);
   CREATE TABLE retrieved_documents (
     call_id INTEGER NOT NULL REFERENCES tool_calls(id) ON DELETE CASCADE,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     rank INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX retrieved_documents_call ON retrieved_documents(call_id);
   CREATE INDEX retrieved_documents_name ON retrieved_documents(agent_id, filename, created_at, rank);
   CREATE TRIGGER retrievals_logged AFTER INSERT ON tool_calls
   WHEN ${API("NEW")}
   BEGIN
     INSERT INTO retrievals (call_id, agent_id, document_id, chunk_index, filename, rank, created_at)
     ${CHUNKS_OF("NEW")};
     INSERT INTO retrieved_documents (call_id, agent_id, filename, rank, created_at)
     ${NAMES_OF("NEW")} GROUP BY 3;
   END;
   CREATE TRIGGER retrievals_follow_deletion AFTER DELETE ON documents
   WHEN OLD.status = 'ready' AND NOT EXISTS (
     SELECT 1 FROM documents d WHERE d.agent_id = OLD.agent_id AND d.filename = OLD.filename AND d.id > OLD.id
   )
   BEGIN
     DELETE FROM retrievals WHERE agent_id = OLD.agent_id AND filename = OLD.filename;
     DELETE FROM retrieved_documents WHERE agent_id = OLD.agent_id AND filename = OLD.filename;
   END;
   INSERT INTO retrievals (call_id, agent_id, document_id, chunk_index, filename, rank, created_at)
     ${CHUNKS_OF("t", "tool_calls t, ")} WHERE ${API("t")};
   INSERT INTO retrieved_documents (call_id, agent_id, filename, rank, created_at)
     ${NAMES_OF("t", "tool_calls t, ")} WHERE ${API("t")} GROUP BY t.id, 3;`,
};
