import type { Migration } from "./migration";

// Coverage (lib/coverage/): each result an agent's own call returned (its searches and asks,
// source 'api'; the inspector's and evaluations' traffic left out), one row per result with its
// rank, made from the call's retrieval trace as the call is logged (a trigger, so no writer can
// forget it) and, here, from the calls already logged. A row goes with its call when the log is
// pruned. A document's history is kept under its name, so a replaced document keeps it; a
// document deleted (no newer version of its name left, served or staged) takes its name's
// history with it.
const ROWS_OF = (call: string, from = "") => `SELECT ${call}.id, ${call}.agent_id, json_extract(r.value, '$.document_id'),
       json_extract(r.value, '$.chunk_index'), json_extract(r.value, '$.filename'), CAST(r.key AS INTEGER) + 1, ${call}.created_at
     FROM ${from}json_each(${call}.retrieval, '$.results') r`;

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
   CREATE INDEX retrievals_name ON retrievals(agent_id, filename, created_at, rank);
   CREATE INDEX retrievals_chunk ON retrievals(agent_id, document_id, chunk_index, created_at, rank);
   CREATE TRIGGER retrievals_logged AFTER INSERT ON tool_calls
   WHEN NEW.source = 'api' AND NEW.retrieval IS NOT NULL
   BEGIN
     INSERT INTO retrievals (call_id, agent_id, document_id, chunk_index, filename, rank, created_at)
     ${ROWS_OF("NEW")};
   END;
   CREATE TRIGGER retrievals_follow_deletion AFTER DELETE ON documents
   WHEN OLD.status = 'ready' AND NOT EXISTS (
     SELECT 1 FROM documents d WHERE d.agent_id = OLD.agent_id AND d.filename = OLD.filename AND d.id > OLD.id
   )
   BEGIN
     DELETE FROM retrievals WHERE agent_id = OLD.agent_id AND filename = OLD.filename;
   END;
   INSERT INTO retrievals (call_id, agent_id, document_id, chunk_index, filename, rank, created_at)
     ${ROWS_OF("t", "tool_calls t, ")} WHERE t.source = 'api' AND t.retrieval IS NOT NULL;`,
};
