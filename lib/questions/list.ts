import "server-only";
import {
  callOutcomes,
  loggedQuestionCount,
  questionStats,
  type QuestionFilter,
  type QuestionStatsRow,
  type QuestionStatus,
} from "../db/questions";
import { getAgent } from "../db/agents";
import { questionKey } from "../core/normalize";
import { searchEnding, type RetrievalTrace } from "../core/trace";
import { groupQuestions } from "./group";

/** At most this many questions in one listing; the most asked come first. */
export const MAX_QUESTIONS_LISTED = 500;
/** The documents a question's latest call returned, first ones first. */
const TOP_DOCUMENTS = 3;

export interface QuestionView {
  id: number;
  text: string;
  status: QuestionStatus;
  expected: string | null;
  pair_id: number | null;
  /** How many times it was asked (in the window listed), in how many wordings. */
  asked: number;
  wordings: number;
  first_asked: string;
  last_asked: string;
  /** The nearest chunk's distance over its calls, before the cut (null: no call reached a chunk). */
  best_distance: number | null;
  /** Calls the no-match cut (or the ask pipeline) refused. */
  refused: number;
  /** What its latest call returned: distinct documents in rank order. */
  top_documents: { document_id: number; filename: string; score: number }[];
  /** The closest chunk's document in its latest call, before the cut (what a refused question came nearest to). */
  closest: { document_id: number; filename: string; score: number } | null;
  /** How the latest call ended: `answered`, `refused`, `no results`, `failed`. */
  latest: { tool: string; at: string; outcome: string };
  /** The metadata filter its latest call was made with (null: none): the inspector opens with it. */
  filter: Record<string, unknown> | null;
}

export function latestOutcome(call: { tool: string; ok: number; outcome: string | null; retrieval: string | null }): string {
  if (!call.ok) return "failed";
  if (call.tool === "ask") return call.outcome?.startsWith("refused") ? "refused" : "answered";
  return call.retrieval ? searchEnding(JSON.parse(call.retrieval) as RetrievalTrace) : "unknown";
}

function topDocuments(retrieval: string | null): QuestionView["top_documents"] {
  if (!retrieval) return [];
  const seen = new Set<number>();
  const docs: QuestionView["top_documents"] = [];
  for (const r of (JSON.parse(retrieval) as RetrievalTrace).results) {
    if (seen.has(r.document_id)) continue;
    seen.add(r.document_id);
    docs.push({ document_id: r.document_id, filename: r.filename, score: r.score });
    if (docs.length === TOP_DOCUMENTS) break;
  }
  return docs;
}

function closestOf(retrieval: string | null): QuestionView["closest"] {
  const n = retrieval ? (JSON.parse(retrieval) as RetrievalTrace).nearest : null;
  return n ? { document_id: n.document_id, filename: n.filename, score: n.score } : null;
}

export function questionViews(rows: QuestionStatsRow[]): QuestionView[] {
  const calls = callOutcomes(rows.map((r) => r.latest_call));
  return rows.map((r) => {
    const call = calls.get(r.latest_call)!;
    return {
      id: r.id,
      text: r.text,
      status: r.status,
      expected: r.expected_filename,
      pair_id: r.pair_id,
      asked: r.asked,
      wordings: r.variants,
      first_asked: r.first_asked,
      last_asked: r.last_asked,
      best_distance: r.best_distance,
      refused: r.refused,
      top_documents: topDocuments(call.retrieval),
      closest: closestOf(call.retrieval),
      latest: { tool: call.tool, at: call.created_at, outcome: latestOutcome(call) },
      filter: call.filter ? (JSON.parse(call.filter) as Record<string, unknown>) : null,
    };
  });
}

export interface QuestionList {
  questions: QuestionView[];
  /** Why the list is empty when it is: questions are not logged, or none was asked yet. */
  empty_reason: string | null;
  logging: boolean;
}

/** The agent's questions, grouped (new ones are grouped first), the most asked first. */
export async function listQuestions(
  agentId: number,
  filter: Omit<QuestionFilter, "limit" | "text"> & { q?: string | null; limit?: number },
): Promise<QuestionList> {
  const agent = getAgent(agentId);
  await groupQuestions(agentId);
  const rows = questionStats(agentId, {
    ...filter,
    text: filter.q ? questionKey(filter.q) : null,
    limit: Math.min(filter.limit ?? MAX_QUESTIONS_LISTED, MAX_QUESTIONS_LISTED),
  });
  const logging = agent.log_questions;
  let empty_reason: string | null = null;
  if (rows.length === 0) {
    if (loggedQuestionCount(agentId) > 0) empty_reason = "No question matches these filters.";
    else if (!logging)
      empty_reason =
        "This agent does not log its questions (Settings): its searches and asks are logged without their text, so there is nothing to list.";
    else
      empty_reason =
        "The agent has not asked anything yet: its searches through the API and its asks appear here (the inspector's tries do not).";
  }
  return { questions: questionViews(rows), empty_reason, logging };
}
