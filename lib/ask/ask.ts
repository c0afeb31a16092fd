import "server-only";
import { AgentView, type AgentRef } from "../db/agent-view";
import { logToolCall, type ToolCallSource } from "../db/tool-calls";
import { forbidden } from "../core/errors";
import { failureMessage, retrieve, type SearchResult } from "../retrieval/retrieve";
import type { Filter } from "../core/filter";
import { pageLabel, type PageRange } from "../core/pages";
import type { RetrievalTrace } from "../core/trace";
import { chatModel, type Source } from "./chat";
import { extractiveAnswer } from "./extractive";

/**
 * The ask pipeline (Corrective RAG), through the same retrieval function and no-match cut as
 * the search: retrieve; nothing within the cut refuses with `no_match`; a chat model, when one
 * is configured, grades each chunk and none relevant refuses with `not_relevant` (without one
 * the cut is the grade); then an answer from the relevant chunks only, generated and citing
 * them, or quoted from them (extractive). Every ask is logged as an `ask` call with its outcome.
 */

export type RefusalReason = "no_match" | "not_relevant";

export interface Citation {
  document_id: number;
  filename: string;
  chunk_index: number;
  score: number;
  /** The header of the table whose rows the chunk holds without it, as the result carries it. */
  context?: string;
  /** The PDF pages the chunk lies on, as the result carries them. */
  pages?: PageRange;
}

export interface AskResult {
  question: string;
  answer: string | null;
  refused: boolean;
  reason: RefusalReason | null;
  /** How the answer was made: by the chat model, or quoted from the chunks; null when refused. */
  answer_kind: "generated" | "extractive" | null;
  /** What graded the chunks: the chat model's name, or the no-match cut alone. */
  graded_by: string;
  citations: Citation[];
  retrieved: (SearchResult & { relevant: boolean })[];
  /** With a metadata filter: the documents it matched (0: none, and so a `no_match` refusal). */
  filter_matched_documents?: number;
}

const cite = (r: SearchResult): Citation => ({
  document_id: r.document_id,
  filename: r.filename,
  chunk_index: r.chunk_index,
  score: r.score,
  ...(r.context ? { context: r.context } : {}),
  ...(r.pages ? { pages: r.pages } : {}),
});
// A chunk of a PDF is cited with its pages, which the model can then name.
const source = (r: SearchResult): Source => ({
  label: `${r.filename} #${r.chunk_index}${r.pages ? `, ${pageLabel(r.pages)}` : ""}`,
  text: r.chunk_text,
  ...(r.context ? { context: r.context } : {}),
});

async function pipeline(agent: AgentView, question: string, topK: number, trace: RetrievalTrace[]): Promise<AskResult> {
  const [retrieved] = await retrieve(agent, [question], { topK, trace });
  const chat = chatModel();
  const base = { question, graded_by: chat ? chat.model : "the no-match cut", answer: null, answer_kind: null, citations: [] };
  if (retrieved.length === 0) return { ...base, refused: true, reason: "no_match", retrieved: [] };
  const relevant = chat ? await chat.grade(question, retrieved.map(source)) : retrieved.map(() => true);
  const graded = retrieved.map((r, i) => ({ ...r, relevant: relevant[i] }));
  const used = graded.filter((r) => r.relevant);
  if (used.length === 0) return { ...base, refused: true, reason: "not_relevant", retrieved: graded };
  if (chat) {
    const answer = await chat.answer(question, used.map(source));
    return { ...base, answer, answer_kind: "generated", refused: false, reason: null, citations: used.map(cite), retrieved: graded };
  }
  const extract = extractiveAnswer(question, used.map(source));
  return {
    ...base,
    answer: extract.answer,
    answer_kind: "extractive",
    refused: false,
    reason: null,
    citations: extract.used.map((i) => cite(used[i])),
    retrieved: graded,
  };
}

/**
 * The agent's ask: gated on its document_search tool like the search, logged whatever happens,
 * as the agent's call or (`inspector`) as a person trying it, which refusal lists leave out.
 */
export async function askAgent(
  agentRef: AgentRef,
  question: string,
  topK: number,
  source: ToolCallSource = "api",
  filter?: Filter,
): Promise<AskResult> {
  const view = AgentView.of(agentRef);
  const { agent } = view;
  const agentId = agent.id;
  const logQuestions = agent.log_questions;
  const input = filter ? { question, top_k: topK, filter: filter.where } : { question, top_k: topK };
  const started = performance.now();
  if (!agent.tools.includes("document_search")) {
    const message = `Agent "${agent.name}" does not have the document_search tool enabled, so it cannot retrieve anything to answer from.`;
    logToolCall({ agentId, logQuestions, tool: "ask", source, input, ok: false, error: message, latencyMs: 0, resultCount: 0 });
    throw forbidden(message);
  }
  try {
    const trace: RetrievalTrace[] = [];
    // A metadata filter narrows what is retrieved (lib/core/filter.ts); the answer says how many documents it matched.
    const narrowed = view.filtered(filter);
    const answered = await pipeline(narrowed, question, topK, trace);
    const result = narrowed.scope ? { ...answered, filter_matched_documents: narrowed.scope.documents.size } : answered;
    logToolCall({
      logQuestions,
      retrieval: trace[0],
      refused: result.refused,
      agentId,
      tool: "ask",
      source,
      input,
      ok: true,
      latencyMs: performance.now() - started,
      resultCount: result.citations.length,
      outcome: result.refused ? `refused: ${result.reason}` : "answered",
    });
    return result;
  } catch (err) {
    const message = failureMessage(err, "ask");
    logToolCall({
      agentId,
      logQuestions,
      tool: "ask",
      source,
      input,
      ok: false,
      error: message,
      latencyMs: performance.now() - started,
      resultCount: 0,
      outcome: "failed",
    });
    throw err;
  }
}
