import { questionKey, questionText } from "./frozen-question-key";
import type { Migration } from "./migration";

// The agent's own questions (lib/questions/): each logged search or ask of the agent keeps its
// normalised text (the key that groups the same question asked again) and what it returned;
// keys are grouped into questions by embedding similarity, and a group carries its triage.
// Pairs say where they came from and whether they count in runs (generated ones are proposed
// until accepted). An agent can keep its questions out of the log.
export const migration: Migration = {
  sql: `ALTER TABLE tool_calls ADD COLUMN question_key TEXT;
   ALTER TABLE tool_calls ADD COLUMN retrieval TEXT;
   ALTER TABLE tool_calls ADD COLUMN refused INTEGER;
   CREATE INDEX tool_calls_question ON tool_calls(agent_id, question_key) WHERE question_key IS NOT NULL;
   CREATE TABLE question_groups (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     -- The first key of the group: its text and vector stand for the group.
     key TEXT NOT NULL,
     status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'labeled', 'unanswerable', 'gap', 'ignored')),
     expected_filename TEXT,
     pair_id INTEGER REFERENCES pairs(id) ON DELETE SET NULL,
     created_at TEXT NOT NULL,
     triaged_at TEXT
   );
   CREATE INDEX question_groups_agent ON question_groups(agent_id, status);
   CREATE TABLE question_keys (
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     group_id INTEGER NOT NULL REFERENCES question_groups(id) ON DELETE CASCADE,
     text TEXT NOT NULL,
     -- The representative's vector (unit length, float32) in this model; null for the other keys.
     model TEXT,
     vector BLOB,
     PRIMARY KEY (agent_id, key)
   ) WITHOUT ROWID;
   CREATE INDEX question_keys_group ON question_keys(group_id);
   ALTER TABLE agents ADD COLUMN log_questions INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE pairs ADD COLUMN source TEXT NOT NULL DEFAULT 'manual';
   ALTER TABLE pairs ADD COLUMN status TEXT NOT NULL DEFAULT 'accepted';
   ALTER TABLE eval_runs ADD COLUMN pair_source TEXT;`,
  backfill: (d) => {
    // The agent's questions logged before keys existed join the Questions tab.
    const set = d.prepare("UPDATE tool_calls SET question_key = ? WHERE id = ?");
    const rows = d.prepare("SELECT id, input FROM tool_calls WHERE source = 'api' AND tool IN ('document_search', 'ask')").all() as {
      id: number;
      input: string;
    }[];
    for (const r of rows) {
      const text = questionText(JSON.parse(r.input));
      if (text) set.run(questionKey(text), r.id);
    }
  },
};
