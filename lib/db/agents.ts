import "server-only";
import { conflict, notFound } from "../core/errors";
import type { RetrievalMode, Tool } from "../validations/agent";
import type { RerankerName } from "../core/rerankers";
import { db, now } from "./client";
import { enqueueCleanup } from "./vector-cleanup";
import { dropKeywordTable } from "./keyword-index";

export interface Agent {
  id: number;
  name: string;
  tools: Tool[];
  /** The no-match cut: results farther than this raw distance are dropped (null: no cut). */
  max_distance: number | null;
  /** The embedding model whose distances the cut was set in (lib/retrieval/cut.ts). */
  max_distance_model: string | null;
  /** How its search ranks chunks: by vector distance, by keywords (bm25), or both fused. */
  retrieval_mode: RetrievalMode;
  /** The rerank stage (lib/rerank/): which reranker orders its mode's first `rerank_candidates` ('none': the mode's order stands). */
  reranker: RerankerName;
  rerank_candidates: number;
  /** MMR's share of relevance against diversity (1: relevance only). */
  mmr_lambda: number;
  /** The learned model it serves (lib/db/rerankers.ts): only one trained on this agent's labels that won its cross-validation. */
  reranker_model_id: number | null;
  /** A no-match cut on the reranker's score (results scored below it are dropped), for one reranker version: null, none. */
  rerank_cut: number | null;
  rerank_cut_version: string | null;
  /** Whether its own searches and asks keep their text in the log (the Questions tab); on by default. */
  log_questions: boolean;
  created_at: string;
  updated_at: string;
}

export interface AgentSummary extends Agent {
  document_count: number;
  chunk_count: number;
  last_activity: string | null;
}

type Row = Omit<Agent, "tools" | "log_questions"> & { tools: string; log_questions: number };
const toAgent = (r: Row): Agent => ({ ...r, tools: JSON.parse(r.tools), log_questions: r.log_questions !== 0 });

export function listAgents(): AgentSummary[] {
  const rows = db()
    .prepare(
      `SELECT a.*,
         (SELECT COUNT(*) FROM documents d WHERE d.agent_id = a.id AND d.status = 'ready') AS document_count,
         (SELECT COALESCE(SUM(chunk_count), 0) FROM documents d WHERE d.agent_id = a.id AND d.status = 'ready') AS chunk_count,
         MAX(a.updated_at,
             COALESCE((SELECT MAX(updated_at) FROM documents d WHERE d.agent_id = a.id), ''),
             COALESCE((SELECT MAX(created_at) FROM tool_calls t WHERE t.agent_id = a.id AND t.source = 'api'), '')) AS last_activity
       FROM agents a ORDER BY a.name`,
    )
    .all() as (Row & Omit<AgentSummary, keyof Agent>)[];
  return rows.map((r) => ({ ...toAgent(r), document_count: r.document_count, chunk_count: r.chunk_count, last_activity: r.last_activity }));
}

export function findAgent(id: number): Agent | undefined {
  const row = db().prepare("SELECT * FROM agents WHERE id = ?").get(id) as Row | undefined;
  return row && toAgent(row);
}

export function getAgent(id: number): Agent {
  const agent = findAgent(id);
  if (!agent) throw notFound(`Agent ${id}`);
  return agent;
}

export function findAgentByName(name: string): Agent | undefined {
  const row = db().prepare("SELECT * FROM agents WHERE name = ?").get(name) as Row | undefined;
  return row && toAgent(row);
}

function assertNameFree(name: string, exceptId?: number) {
  const other = findAgentByName(name);
  if (other && other.id !== exceptId) throw conflict(`An agent named "${name}" already exists.`);
}

export function createAgent(input: { name: string; tools: Tool[] }): Agent {
  assertNameFree(input.name);
  const t = now();
  const { lastInsertRowid } = db()
    .prepare("INSERT INTO agents (name, tools, created_at, updated_at) VALUES (?, ?, ?, ?)")
    .run(input.name, JSON.stringify(input.tools), t, t);
  return getAgent(Number(lastInsertRowid));
}

/** `cut`: a new no-match cut in the given model's distances, or null to clear it; absent leaves it. */
export function updateAgent(
  id: number,
  input: {
    name?: string;
    tools?: Tool[];
    retrieval_mode?: RetrievalMode;
    log_questions?: boolean;
    reranker?: RerankerName;
    rerank_candidates?: number;
    mmr_lambda?: number;
    reranker_model_id?: number | null;
    /** A cut on the reranker's score, for the reranker version given; null clears it; absent leaves it. */
    rerankCut?: { cut: number; version: string } | null;
    cut?: { maxDistance: number; model: string } | null;
  },
): Agent {
  const agent = getAgent(id);
  if (input.name !== undefined) assertNameFree(input.name, id);
  const cut =
    input.cut === undefined
      ? { maxDistance: agent.max_distance, model: agent.max_distance_model }
      : (input.cut ?? { maxDistance: null, model: null });
  db()
    .prepare(
      `UPDATE agents SET name = ?, tools = ?, retrieval_mode = ?, log_questions = ?, max_distance = ?, max_distance_model = ?,
         reranker = ?, rerank_candidates = ?, mmr_lambda = ?, reranker_model_id = ?, rerank_cut = ?, rerank_cut_version = ?, updated_at = ? WHERE id = ?`,
    )
    .run(
      input.name ?? agent.name,
      JSON.stringify(input.tools ?? agent.tools),
      input.retrieval_mode ?? agent.retrieval_mode,
      (input.log_questions ?? agent.log_questions) ? 1 : 0,
      cut.maxDistance,
      cut.model,
      input.reranker ?? agent.reranker,
      input.rerank_candidates ?? agent.rerank_candidates,
      input.mmr_lambda ?? agent.mmr_lambda,
      input.reranker_model_id === undefined ? agent.reranker_model_id : input.reranker_model_id,
      input.rerankCut === undefined ? agent.rerank_cut : (input.rerankCut?.cut ?? null),
      input.rerankCut === undefined ? agent.rerank_cut_version : (input.rerankCut?.version ?? null),
      now(),
      id,
    );
  return getAgent(id);
}

/** Removes the agent with its documents and queues all its vectors for removal, in one transaction. */
export const deleteAgentRow = (id: number) =>
  db().transaction(() => {
    db().prepare("DELETE FROM agents WHERE id = ?").run(id);
    dropKeywordTable(db(), id);
    enqueueCleanup(id, null, 0, "agent deleted");
  })();
