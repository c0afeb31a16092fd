import "server-only";
import type { RetrievalMode } from "../validations/agent";
import { AgentView, type AgentRef } from "../db/agent-view";
import { embeddingModelsInUse } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { EmbeddingError, type QueryWord } from "../embeddings";
import { collectionFor } from "../vector-store/client";
import { AppError, describeFailure, forbidden } from "../core/errors";
import { logToolCall, type ToolCallSource } from "../db/tool-calls";
import type { RankedChunk } from "../vector-store/chunks";
import { refusedByCut, type RetrievalTrace } from "../core/trace";
import { parseFilter, type Filter } from "../core/filter";
import { rerankFor } from "./rerank";
import { agentCorpusStats } from "./corpus-stats";
import { noMatchCut, rerankCutFor } from "./cut";
import { CANDIDATE_DEPTH, readResults, resultsWithText, servedCandidates, traces, visibleOnly, type SearchResult } from "./read-path";

export { CANDIDATE_DEPTH, resultsWithText, type SearchResult };
export { locate, type LocatedChunk, type Location } from "./locate";

/** Distances are only comparable within one embedding space, so a mixed index is an error. */
function assertModel(agentId: number, model: string): void {
  const other = embeddingModelsInUse(agentId).filter((m) => m !== model);
  if (other.length > 0) {
    throw new AppError(
      "embedding_model_mismatch",
      `This agent's documents were embedded with ${other.join(", ")} but the app now embeds with ${model}. ` +
        "Run `npm run reindex` to re-embed them with the configured model.",
    );
  }
}

/**
 * Query vectors from the model that embedded this agent's chunks, weighted by the agent's own
 * chunks when the provider supports it (the local embedder: rare words count more).
 */
export async function embedForAgent(ref: AgentRef, queries: string[]) {
  const agent = AgentView.of(ref);
  const model = embedder();
  assertModel(agent.id, model.model);
  const corpus = model.embedQueries ? await agentCorpusStats(agent, model) : null;
  const vectors = corpus ? await model.embedQueries!(queries, corpus) : await model.embed(queries);
  return { model, vectors };
}

/**
 * How the query's words are weighted for this agent, or null when the provider does not weight
 * queries (the inspector shows it next to the ranking).
 */
export async function explainQueryForAgent(ref: AgentRef, query: string): Promise<{ chunks: number; words: QueryWord[] } | null> {
  const model = embedder();
  if (!model.explainQuery) return null;
  const corpus = await agentCorpusStats(ref, model);
  return corpus ? { chunks: corpus.chunks, words: model.explainQuery(query, corpus) } : null;
}

/**
 * The one retrieval function, in the agent's retrieval mode (or `mode`): embed the queries with
 * the model that embedded the chunks (weighted by the agent's own chunks where the provider does
 * that), then read them through the read path (lib/retrieval/read-path.ts): the nearest
 * candidates, exactly or from the shared collection scoped to this agent, of ready documents
 * only, ranked in the mode (keyword and hybrid in lib/retrieval/modes.ts), reordered by the
 * agent's reranker when it has one (lib/retrieval/rerank.ts), the top_k hits past
 * the agent's no-match cut dropped (none left: no match). Chroma returns ids and distances; the
 * text of the hits is read from SQLite.
 */
export async function retrieve(
  agentRef: AgentRef,
  queries: string[],
  opts: { topK: number; mode?: RetrievalMode; trace?: RetrievalTrace[] },
): Promise<SearchResult[][]> {
  const view = AgentView.of(agentRef);
  const { agent } = view;
  const setting = (model: string) => ({ model, mode: opts.mode ?? agent.retrieval_mode, cut: noMatchCut(agent, model), top_k: opts.topK });
  if (queries.length === 0 || view.readyChunkCount() === 0) {
    opts.trace?.push(...queries.map(() => ({ ...setting(embedder().model), best: null, nearest: null, results: [] })));
    return queries.map(() => []);
  }
  const rerank = rerankFor(agent);
  const { model, vectors } = await embedForAgent(view, queries);
  const { mode, cut } = setting(model.model);
  const read = { agent: view, collection: await collectionFor(model), model: model.model, vectors, queries };
  const rerankCut = rerankCutFor(agent, rerank?.reranker.version);
  const { results, nearest } = await readResults(read, { mode, topK: opts.topK, cut, rerank, rerankCut });
  const reranked = rerank ? { reranker: rerank.reranker.version, rerank_cut: rerankCut } : {};
  if (opts.trace) opts.trace.push(...traces(view, { ...setting(model.model), ...reranked }, nearest, results));
  return results;
}

/** The top_k chunks for one query: what the agent's `document_search` tool returns. */
export async function searchAgentDocuments(
  agent: AgentRef,
  query: string,
  topK: number,
  trace?: RetrievalTrace[],
): Promise<SearchResult[]> {
  return (await retrieve(agent, [query], { topK, trace }))[0];
}

const NOT_ENABLED = (name: string) => `Agent "${name}" does not have the document_search tool enabled.`;

/**
 * The agent-facing gate, one place for every path an agent searches through (the REST search,
 * and the ask pipeline): the agent exists and has the `document_search` tool. A refusal is
 * logged as a failed call: the agent asked and was refused, which an operator needs to see.
 */
export function gateDocumentSearch(agentRef: AgentRef, input: { query: string; top_k: number; filter?: Record<string, unknown> }): void {
  const { agent } = AgentView.of(agentRef);
  if (agent.tools.includes("document_search")) return;
  const message = NOT_ENABLED(agent.name);
  logToolCall({
    agentId: agent.id,
    logQuestions: agent.log_questions,
    tool: "document_search",
    input,
    ok: false,
    error: message,
    latencyMs: 0,
    resultCount: 0,
  });
  throw forbidden(message);
}

/**
 * The view a logged call (or a labeled pair) is asked through again: narrowed by the filter it
 * was made with (JSON as stored, or its object; none: the view itself). A key no document has
 * any longer is not refused here: it matches nothing (or, under $ne / $nin, everything).
 */
export function asAskedWith(view: AgentView, filter: string | Record<string, unknown> | null | undefined): AgentView {
  if (!filter) return view;
  return view.filtered(parseFilter(typeof filter === "string" ? JSON.parse(filter) : filter), { checkKeys: false });
}

/** The `document_search` tool: gated per agent, every call logged, ok or not. */
export async function documentSearchTool(agentRef: AgentRef, query: string, topK: number): Promise<SearchResult[]> {
  return (await filteredSearchTool(agentRef, query, topK)).results;
}

/** What a search with a metadata filter answers besides its results: how many documents the filter matched. */
export interface FilteredResults {
  results: SearchResult[];
  /** Documents of the agent the filter matched (0: none, and so no results); absent without a filter. */
  filter_matched_documents?: number;
}

/**
 * The `document_search` tool with an optional metadata filter (lib/core/filter.ts), applied
 * before ranking: the nearest chunks among the matching documents. The call is logged with its
 * filter, so the inspector can replay it as the agent made it; a filter naming a key no document
 * has fails, logged, as a 422 naming it.
 */
export async function filteredSearchTool(agentRef: AgentRef, query: string, topK: number, filter?: Filter): Promise<FilteredResults> {
  const agent = AgentView.of(agentRef);
  const input = filter ? { query, top_k: topK, filter: filter.where } : { query, top_k: topK };
  gateDocumentSearch(agent, input);
  const trace: RetrievalTrace[] = [];
  return logged(
    agent,
    "api",
    input,
    async () => {
      const narrowed = agent.filtered(filter);
      const results = await searchAgentDocuments(narrowed, query, topK, trace);
      return narrowed.scope ? { results, filter_matched_documents: narrowed.scope.documents.size } : { results };
    },
    (r) => r.results.length,
    trace,
  );
}

/** Runs a search and logs it as a tool call with its source, latency and result count, ok or not. */
export async function logged<T>(
  agentRef: AgentRef,
  source: ToolCallSource,
  input: { query: string; top_k: number; filter?: Record<string, unknown> },
  run: () => Promise<T>,
  count: (result: T) => number,
  trace?: RetrievalTrace[],
): Promise<T> {
  // Held rows give their setting; for an id, logToolCall reads it only if the call is a question.
  const agentId = typeof agentRef === "number" ? agentRef : agentRef.id;
  const logQuestions = typeof agentRef === "number" ? undefined : AgentView.of(agentRef).agent.log_questions;
  const started = performance.now();
  try {
    const result = await run();
    const retrieval = trace?.[0];
    logToolCall({
      agentId,
      logQuestions,
      tool: "document_search",
      source,
      input,
      ok: true,
      latencyMs: performance.now() - started,
      resultCount: count(result),
      retrieval,
      refused: retrieval && refusedByCut(retrieval),
    });
    return result;
  } catch (err) {
    logToolCall({
      agentId,
      logQuestions,
      tool: "document_search",
      source,
      input,
      ok: false,
      error: failureMessage(err, "search"),
      latencyMs: performance.now() - started,
      resultCount: 0,
    });
    throw err;
  }
}

/**
 * What the log view shows for a failed call: the app's own words, never a library's
 * (describeFailure), with a provider's failure in its own words alone, as logged calls always had it.
 */
export function failureMessage(err: unknown, what: string): string {
  return err instanceof EmbeddingError ? err.message : describeFailure(err, what);
}

export type { RankedChunk };

/**
 * The whole ranking of an agent's chunks for each query, with no k limit, as the index returns
 * it (tests and the quality benchmark on small corpora; the inspector and recall runs use locate).
 */
export async function rankAllChunks(ref: AgentRef, queries: string[]): Promise<RankedChunk[][]> {
  const agent = AgentView.of(ref);
  if (queries.length === 0 || agent.readyChunkCount() === 0) return queries.map(() => []);
  const { model, vectors } = await embedForAgent(agent, queries);
  const target = { agent, collection: await collectionFor(model), model: model.model, vectors };
  return (await visibleOnly(target, Number.MAX_SAFE_INTEGER, servedCandidates(target))).kept;
}

/** Best rank of each document in one full ranking, keyed by document id. */
export function bestRanks(ranking: RankedChunk[]): Map<number, { rank: number; distance: number; chunk_index: number }> {
  const best = new Map<number, { rank: number; distance: number; chunk_index: number }>();
  ranking.forEach((r, i) => {
    if (!best.has(r.document_id)) best.set(r.document_id, { rank: i + 1, distance: r.score, chunk_index: r.chunk_index });
  });
  return best;
}
