import type { Migration } from "./migration";

// The rerank stage (lib/rerank/): per agent, the reranker its searches use ('none' until one is
// switched on), how many candidates of its mode's order are reranked, MMR's lambda, and the
// learned model it serves (NULL: none trained, or none that won). reranker_models keeps each
// trained model with its agent, the labels it learned from and its cross-validation, so a run
// records which version it ranked with and a model never serves another agent. Ids are never
// reused, so a version names one model for good. A no-match cut on the reranker's score
// (rerank_cut), set for one reranker version (rerank_cut_version) and applying only while it
// serves; a run's pairs keep the reranker's score of their document and of the query's first
// result, which that cut is calibrated from.
export const migration: Migration = {
  sql: `ALTER TABLE agents ADD COLUMN reranker TEXT NOT NULL DEFAULT 'none';
   ALTER TABLE agents ADD COLUMN rerank_candidates INTEGER NOT NULL DEFAULT 50;
   ALTER TABLE agents ADD COLUMN mmr_lambda REAL NOT NULL DEFAULT 0.7;
   ALTER TABLE agents ADD COLUMN reranker_model_id INTEGER;
   ALTER TABLE agents ADD COLUMN rerank_cut REAL;
   ALTER TABLE agents ADD COLUMN rerank_cut_version TEXT;
   CREATE TABLE reranker_models (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     mode TEXT NOT NULL,
     labels INTEGER NOT NULL,
     labels_stamp TEXT NOT NULL,
     model TEXT NOT NULL,
     label_index BLOB NOT NULL,
     cross_validation TEXT NOT NULL,
     wins INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX reranker_models_agent ON reranker_models(agent_id, id);
   ALTER TABLE eval_runs ADD COLUMN reranker TEXT NOT NULL DEFAULT 'none';
   ALTER TABLE eval_runs ADD COLUMN reranker_version TEXT;
   ALTER TABLE eval_results ADD COLUMN rerank_score REAL;
   ALTER TABLE eval_results ADD COLUMN top_rerank_score REAL;`,
};
