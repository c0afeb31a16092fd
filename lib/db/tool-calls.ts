import "server-only";
import { env } from "../env.mjs";
import { MAX_QUERY_LENGTH } from "../validations/search";
import { questionKey, questionText } from "../core/normalize";
import type { RetrievalTrace } from "../core/trace";
import { dbState } from "./state";
import { db, now } from "./client";
import { forgetUnaskedQuestions } from "./questions";

export interface ToolCall {
  id: number;
  agent_id: number;
  tool: string;
  input: string;
  ok: number;
  error: string | null;
  latency_ms: number;
  result_count: number;
  created_at: string;
  /** `api`: the agent's own call; `inspector`: a person testing retrieval. */
  source: ToolCallSource;
  /** How an ask ended: "answered" or "refused: <reason>"; null for searches. */
  outcome: string | null;
  /** The agent's own question, normalised (lib/core/normalize.ts); null for other calls and while the agent does not log questions. */
  question_key: string | null;
  /** JSON of a RetrievalTrace: what the call returned and under which settings. */
  retrieval: string | null;
  /** 1 when the no-match cut (or, for an ask, the pipeline) refused it. */
  refused: number | null;
}

export type ToolCallSource = "api" | "inspector";

/**
 * The input as stored: a text field (the query, the question) keeps at most MAX_QUERY_LENGTH
 * characters, whoever logs it; `withoutText` leaves the text fields out (an agent that does not
 * log its questions).
 */
function storedInput(input: unknown, withoutText: boolean): string {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return JSON.stringify(input);
  const capped = Object.entries(input).flatMap(([k, v]) =>
    typeof v !== "string" ? [[k, v]] : withoutText ? [] : [[k, v.slice(0, MAX_QUERY_LENGTH)]],
  );
  return JSON.stringify(Object.fromEntries(capped));
}

/** The calls whose text is the customer's question: the agent's own searches and asks. */
const isQuestion = (tool: string, source: ToolCallSource) => source === "api" && (tool === "document_search" || tool === "ask");

/** Whether the agent keeps its questions' text in the log (an agent setting; on by default). */
export function logsQuestions(agentId: number): boolean {
  const row = db().prepare("SELECT log_questions FROM agents WHERE id = ?").get(agentId) as { log_questions: number } | undefined;
  return row?.log_questions !== 0;
}

export function logToolCall(c: {
  agentId: number;
  tool: string;
  input: unknown;
  ok: boolean;
  error?: string;
  latencyMs: number;
  resultCount: number;
  source?: ToolCallSource;
  outcome?: string;
  retrieval?: RetrievalTrace;
  refused?: boolean;
  /** The agent's setting when the caller holds the agent; read from its row otherwise. */
  logQuestions?: boolean;
}): void {
  const source = c.source ?? "api";
  const question = isQuestion(c.tool, source);
  const withoutText = question && !(c.logQuestions ?? logsQuestions(c.agentId));
  const text = question && !withoutText ? questionText(c.input) : null;
  try {
    db()
      .prepare(
        `INSERT INTO tool_calls (agent_id, tool, input, ok, error, latency_ms, result_count, created_at, source, outcome, question_key, retrieval, refused)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        c.agentId,
        c.tool,
        storedInput(c.input, withoutText),
        c.ok ? 1 : 0,
        c.error ?? null,
        c.latencyMs,
        c.resultCount,
        now(),
        source,
        c.outcome ?? null,
        text === null ? null : questionKey(text.slice(0, MAX_QUERY_LENGTH)),
        c.retrieval ? JSON.stringify(c.retrieval) : null,
        c.refused === undefined ? null : c.refused ? 1 : 0,
      );
  } catch (err) {
    // The agent was deleted while its search ran: there is nothing left to log it against.
    if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_FOREIGNKEY") return;
    throw err;
  }
  maybePrune(c.agentId);
}

const DAY_MS = 86_400_000;
/** How often one agent's history is pruned, per process; in between it may overshoot a little. */
export const PRUNE_INTERVAL_MS = 60_000;

function maybePrune(agentId: number): void {
  const prunedAt = dbState().toolCallsPrunedAt;
  const at = Date.now();
  if (at - (prunedAt.get(agentId) ?? Number.NEGATIVE_INFINITY) < PRUNE_INTERVAL_MS) return;
  prunedAt.set(agentId, at);
  try {
    pruneToolCalls(agentId);
  } catch (err) {
    // Keeping the history bounded must never fail the call being logged.
    console.error("pruning the tool-call history failed:", err);
  }
}

/**
 * Deletes one agent's calls older than `retentionDays` or beyond its newest `maxPerAgent`;
 * both deletes walk the (agent_id, created_at) index. Returns how many rows went.
 */
export function pruneToolCalls(
  agentId: number,
  limits: { retentionDays: number; maxPerAgent: number } = {
    retentionDays: env().TOOL_CALL_RETENTION_DAYS,
    maxPerAgent: env().TOOL_CALL_MAX_PER_AGENT,
  },
): number {
  const d = db();
  const cutoff = new Date(Date.now() - limits.retentionDays * DAY_MS).toISOString();
  return d.transaction(() => {
    let removed = d.prepare("DELETE FROM tool_calls WHERE agent_id = ? AND created_at < ?").run(agentId, cutoff).changes;
    const oldestKept = d
      .prepare("SELECT created_at, id FROM tool_calls WHERE agent_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?")
      .get(agentId, limits.maxPerAgent - 1) as { created_at: string; id: number } | undefined;
    if (oldestKept) {
      removed += d
        .prepare("DELETE FROM tool_calls WHERE agent_id = ? AND (created_at, id) < (?, ?)")
        .run(agentId, oldestKept.created_at, oldestKept.id).changes;
    }
    if (removed > 0) forgetUnaskedQuestions(agentId);
    return removed;
  })();
}

export function recentToolCalls(agentId: number, limit = 20): ToolCall[] {
  return db().prepare("SELECT * FROM tool_calls WHERE agent_id = ? ORDER BY id DESC LIMIT ?").all(agentId, limit) as ToolCall[];
}

/**
 * The latest call of each distinct query, newest first: what "Recent queries" lists, so a
 * query tried at ten top_k values or reloaded five times shows once, with its latest run.
 */
export function recentQueries(agentId: number, limit = 15): ToolCall[] {
  return db()
    .prepare(
      `SELECT t.* FROM tool_calls t
       JOIN (SELECT MAX(id) AS id FROM tool_calls WHERE agent_id = ? AND tool = 'document_search'
             GROUP BY json_extract(input, '$.query') ORDER BY id DESC LIMIT ?) latest ON latest.id = t.id
       ORDER BY t.id DESC`,
    )
    .all(agentId, limit) as ToolCall[];
}

/** The latest refused ask of each distinct question, newest first: what the agent itself could not answer (not tries in the inspector). */
export function recentRefusals(agentId: number, limit = 10): ToolCall[] {
  return db()
    .prepare(
      `SELECT t.* FROM tool_calls t
       JOIN (SELECT MAX(id) AS id FROM tool_calls WHERE agent_id = ? AND tool = 'ask' AND source = 'api' AND outcome LIKE 'refused%'
             GROUP BY json_extract(input, '$.question') ORDER BY id DESC LIMIT ?) latest ON latest.id = t.id
       ORDER BY t.id DESC`,
    )
    .all(agentId, limit) as ToolCall[];
}

/**
 * The agent's distinct successful search queries, most recently searched first, from the agent
 * and the inspector alike: what the index-recall monitor replays.
 */
export function recentSearchTexts(agentId: number, limit: number): string[] {
  const rows = db()
    .prepare(
      `SELECT json_extract(input, '$.query') AS query FROM tool_calls
       WHERE agent_id = ? AND tool = 'document_search' AND ok = 1 AND trim(COALESCE(json_extract(input, '$.query'), '')) != ''
       GROUP BY json_extract(input, '$.query') ORDER BY MAX(id) DESC LIMIT ?`,
    )
    .all(agentId, limit) as { query: unknown }[];
  return rows.map((r) => String(r.query));
}

/** Agents by their latest search, the most recent first (what to load first after a start). */
export function agentsByLatestSearch(limit: number): number[] {
  const rows = db().prepare("SELECT agent_id FROM tool_calls GROUP BY agent_id ORDER BY MAX(created_at) DESC LIMIT ?").all(limit) as {
    agent_id: number;
  }[];
  return rows.map((r) => r.agent_id);
}
