import "server-only";
import { AgentView } from "../db/agent-view";
import { dropDraftKeywords } from "../retrieval/draft-keywords";
import { loggedQuestionCalls } from "../db/questions";
import { oneAtATime } from "../core/one-at-a-time";
import { asAskedWith, retrieve } from "../retrieval/retrieve";
import { searchEnding as ending, type RetrievalTrace, type SearchEnding as Ending, type TracedResult } from "../core/trace";

/** The most logged questions one replay re-runs. */
export const MAX_REPLAY = 1_000;
/** Questions re-run per retrieval call. */
const REPLAY_BATCH = 32;

/** Distinct documents of a result list, by filename (a document's identity across re-uploads), in rank order. */
function documents(results: TracedResult[]): { filename: string; score: number }[] {
  const seen = new Map<string, number>();
  for (const r of results) if (!seen.has(r.filename)) seen.set(r.filename, r.score);
  return [...seen].map(([filename, score]) => ({ filename, score }));
}

export interface ReplayedQuestion {
  call_id: number;
  group_id: number | null;
  question: string;
  asked_at: string;
  then: {
    ending: Ending;
    first: { filename: string; score: number } | null;
    documents: string[];
    mode: string;
    cut: number | null;
    model: string;
  };
  now: {
    ending: Ending;
    first: { filename: string; score: number } | null;
    documents: string[];
    mode: string;
    cut: number | null;
    model: string;
  };
  /** Documents in the top_k now and not then, and then and not now. */
  gained: string[];
  lost: string[];
  first_changed: boolean;
  /** Where the document that came first then ranks now among the documents (null: not in the top_k). */
  then_first_rank_now: number | null;
  /** Now minus then, of the first result's distance (null when either has none, or the models differ). */
  first_distance_change: number | null;
}

export interface ReplaySummary {
  replayed: number;
  first_document_changed: number;
  newly_refused: number;
  newly_answered: number;
  unchanged: number;
  /** Questions logged under another embedding model: their distances are not compared. */
  other_model: number;
}

function compare(
  call: { id: number; group_id: number | null; text: string; created_at: string },
  then: RetrievalTrace,
  now: RetrievalTrace,
): ReplayedQuestion {
  const thenDocs = documents(then.results);
  const nowDocs = documents(now.results);
  const side = (t: RetrievalTrace, docs: { filename: string; score: number }[]) => ({
    ending: ending(t),
    first: docs[0] ?? null,
    documents: docs.map((d) => d.filename),
    mode: t.mode,
    cut: t.cut,
    model: t.model,
  });
  const thenNames = new Set(thenDocs.map((d) => d.filename));
  const nowNames = new Set(nowDocs.map((d) => d.filename));
  const rank = thenDocs[0] ? nowDocs.findIndex((d) => d.filename === thenDocs[0].filename) : -1;
  const comparable = then.model === now.model && thenDocs[0] && nowDocs[0];
  return {
    call_id: call.id,
    group_id: call.group_id,
    question: call.text,
    asked_at: call.created_at,
    then: side(then, thenDocs),
    now: side(now, nowDocs),
    gained: nowDocs.filter((d) => !thenNames.has(d.filename)).map((d) => d.filename),
    lost: thenDocs.filter((d) => !nowNames.has(d.filename)).map((d) => d.filename),
    first_changed: (thenDocs[0]?.filename ?? null) !== (nowDocs[0]?.filename ?? null),
    then_first_rank_now: rank < 0 ? null : rank + 1,
    first_distance_change: comparable ? nowDocs[0].score - thenDocs[0].score : null,
  };
}

export function summarize(rows: ReplayedQuestion[]): ReplaySummary {
  return {
    replayed: rows.length,
    first_document_changed: rows.filter((r) => r.first_changed && r.then.first && r.now.first).length,
    newly_refused: rows.filter((r) => r.then.ending === "answered" && r.now.ending !== "answered").length,
    newly_answered: rows.filter((r) => r.then.ending !== "answered" && r.now.ending === "answered").length,
    unchanged: rows.filter((r) => !r.first_changed && r.gained.length === 0 && r.lost.length === 0 && r.then.ending === r.now.ending)
      .length,
    other_model: rows.filter((r) => r.then.model !== r.now.model).length,
  };
}

/**
 * Re-runs logged questions of the agent now, each with the top_k it was asked with, in the
 * agent's current mode and cut, and compares with what it returned then: did a change (an upload,
 * a re-index, another mode or cut) help the questions users actually asked? Nothing is logged.
 * One replay per agent at a time (409 otherwise).
 */
export async function replayQuestions(
  agentId: number,
  select: { since?: string | null; groupIds?: number[] | null; limit?: number; draftId?: number },
): Promise<{ summary: ReplaySummary; questions: ReplayedQuestion[] }> {
  // Through a draft: asked as the agent would answer once the draft is published.
  const view = select.draftId === undefined ? AgentView.of(agentId) : AgentView.asDraft(agentId, select.draftId);
  try {
    return await replayThrough(view, select);
  } finally {
    dropDraftKeywords(view);
  }
}

async function replayThrough(
  view: AgentView,
  select: { since?: string | null; groupIds?: number[] | null; limit?: number },
): Promise<{ summary: ReplaySummary; questions: ReplayedQuestion[] }> {
  const agentId = view.id;
  return oneAtATime(`replay:${agentId}`, "A replay of this agent's questions", "Wait for it to finish, then replay again.", async () => {
    const calls = loggedQuestionCalls(agentId, {
      since: select.since,
      groupIds: select.groupIds,
      limit: Math.min(select.limit ?? 100, MAX_REPLAY),
    });
    const then = calls.map((c) => JSON.parse(c.retrieval) as RetrievalTrace);
    const now: RetrievalTrace[] = new Array(calls.length);
    // Each asked again with its top_k and the metadata filter it was made with.
    const asked = new Map<string, { topK: number; filter: string | null; indexes: number[] }>();
    then.forEach((t, i) => {
      const key = `${t.top_k}\u0000${calls[i].filter ?? ""}`;
      const group = asked.get(key) ?? { topK: t.top_k, filter: calls[i].filter, indexes: [] };
      group.indexes.push(i);
      asked.set(key, group);
    });
    for (const { topK, filter, indexes } of asked.values()) {
      const through = asAskedWith(view, filter);
      for (let b = 0; b < indexes.length; b += REPLAY_BATCH) {
        const batch = indexes.slice(b, b + REPLAY_BATCH);
        const trace: RetrievalTrace[] = [];
        await retrieve(
          through,
          batch.map((i) => calls[i].text),
          { topK, trace },
        );
        batch.forEach((i, j) => (now[i] = trace[j]));
      }
    }
    const questions = calls.map((c, i) => compare(c, then[i], now[i]));
    return { summary: summarize(questions), questions };
  });
}
