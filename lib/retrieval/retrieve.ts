import "server-only";
import { getAgent } from "../db/agents";
import { agentCorpusStats } from "./corpus-stats";
import { agentChunkCount, embeddingModelsInUse, hiddenVectorCount, readyDocumentIds } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { EmbeddingError, type QueryWord } from "../embeddings";
import { chunkId, collectionFor, isVectorStoreUnavailable } from "../vector-store/client";
import { AppError, forbidden, vectorStoreUnavailable } from "../http/errors";
import { logToolCall, type ToolCallSource } from "../db/tool-calls";
import { chunksByIds, queryAgent, rankAgent, type RankedChunk, type VectorHit } from "../vector-store/chunks";

export interface SearchResult {
  chunk_text: string;
  /** Chroma's raw distance in the collection's space: lower is better. */
  score: number;
  document_id: number;
  filename: string;
  chunk_index: number;
}

const toResult = (h: VectorHit): SearchResult => ({
  chunk_text: h.text,
  score: h.distance,
  document_id: h.metadata.document_id,
  filename: h.metadata.filename,
  chunk_index: h.metadata.chunk_index,
});

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
export async function embedForAgent(agentId: number, queries: string[]) {
  const model = embedder();
  assertModel(agentId, model.model);
  const corpus = model.embedQueries ? await agentCorpusStats(agentId, model) : null;
  const vectors = corpus ? await model.embedQueries!(queries, corpus) : await model.embed(queries);
  return { model, vectors };
}

/**
 * How the query's words are weighted for this agent, or null when the provider does not weight
 * queries (the inspector shows it next to the ranking).
 */
export async function explainQueryForAgent(agentId: number, query: string): Promise<{ chunks: number; words: QueryWord[] } | null> {
  const model = embedder();
  if (!model.explainQuery) return null;
  const corpus = await agentCorpusStats(agentId, model);
  return corpus ? { chunks: corpus.chunks, words: model.explainQuery(query, corpus) } : null;
}

/**
 * Chroma can fail a query that races a delete (the hit's record is gone by the time it is
 * read); asking again sees the index without it. Unreachable or hung is not retried here.
 */
async function retryRace<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= 3 || isVectorStoreUnavailable(err) || err instanceof AppError) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}

/**
 * Asks Chroma for `want` results per query among the agent's ready documents. The shared
 * collection also holds vectors no ready document owns (one still indexing, a failed or deleted
 * one awaiting clean-up), so Chroma is asked for that many more, the others are dropped, and in
 * the rare case that still leaves too few (they changed meanwhile) it is asked again for more.
 */
async function visibleOnly<T extends { document_id: number }>(
  agentId: number,
  queries: number,
  want: number,
  run: (n: number) => Promise<T[][]>,
): Promise<T[][]> {
  if (queries === 0 || agentChunkCount(agentId) === 0) return Array.from({ length: queries }, () => []);
  let n = Math.min(want, agentChunkCount(agentId)) + hiddenVectorCount(agentId);
  for (let retries = 0; ; ) {
    const raw = await retryRace(() => run(n));
    // Read after the query: a document removed meanwhile is not shown.
    const visible = readyDocumentIds(agentId);
    const target = Math.min(want, agentChunkCount(agentId));
    const kept = raw.map((hits) => hits.filter((h) => visible.has(h.document_id)));
    if (kept.every((hits) => hits.length >= target)) return kept;
    if (raw.some((hits, q) => hits.length === n && kept[q].length < target)) {
      n *= 2; // crowded out by vectors of documents that are not ready
    } else if (retries++ >= 2) {
      return kept; // the agent's vectors are incomplete (the audit reports it)
    } else {
      // Chroma answered with fewer than it holds: a removal was running meanwhile. Ask again.
      await new Promise((r) => setTimeout(r, 25 * retries));
    }
  }
}

export interface Retrieval {
  /** Per query, the first top_k chunks of ready documents with their text, closest first. */
  results: SearchResult[][];
  /** Per query, with `full`: every chunk of the agent's ready documents, closest first (distances only). */
  rankings: RankedChunk[][];
}

/**
 * The one retrieval function: embed the queries with the model that embedded the chunks
 * (weighted by the agent's own chunks where the provider does that), query the shared
 * collection filtered to this agent, closest first, and keep chunks of ready documents only.
 * Without `full` it asks Chroma for top_k (the REST search); with `full` it ranks every chunk
 * and the results are the head of that same ranking (the inspector, recall runs), so what a
 * diagnosis reads and what the list shows cannot disagree.
 */
export async function retrieve(agentId: number, queries: string[], opts: { topK: number; full?: boolean }): Promise<Retrieval> {
  if (queries.length === 0 || agentChunkCount(agentId) === 0) return { results: queries.map(() => []), rankings: queries.map(() => []) };
  const { model, vectors } = await embedForAgent(agentId, queries);
  const collection = await collectionFor(model);
  if (!opts.full) {
    const hits = await visibleOnly(agentId, queries.length, opts.topK, async (n) =>
      // A hit whose metadata is already gone (deleted mid-query) is dropped, not a failure.
      (await queryAgent(collection, agentId, vectors, n)).map((q) =>
        q.filter((h) => h.metadata).map((h) => ({ ...h, document_id: h.metadata.document_id })),
      ),
    );
    const results = hits.map((q) => q.slice(0, opts.topK).map(toResult));
    return { results, rankings: results.map((q) => q.map((r) => ({ document_id: r.document_id, chunk_index: r.chunk_index, score: r.score }))) };
  }
  const rankings = await visibleOnly(agentId, queries.length, Number.MAX_SAFE_INTEGER, (n) => rankAgent(collection, agentId, vectors, n));
  const results = await Promise.all(
    rankings.map(async (ranking) => {
      const head = ranking.slice(0, opts.topK);
      const found = await chunksByIds(collection, agentId, head.map((r) => chunkId(r.document_id, r.chunk_index)));
      // A chunk removed since the ranking was made is left out.
      return head.flatMap((r): SearchResult[] => {
        const hit = found.get(chunkId(r.document_id, r.chunk_index));
        return hit ? [{ chunk_text: hit.text, score: r.score, document_id: r.document_id, filename: hit.metadata.filename, chunk_index: r.chunk_index }] : [];
      });
    }),
  );
  return { results, rankings };
}

/** The top_k chunks for one query: what the agent's `document_search` tool returns. */
export async function searchAgentDocuments(agentId: number, query: string, topK: number): Promise<SearchResult[]> {
  return (await retrieve(agentId, [query], { topK })).results[0];
}

const NOT_ENABLED = (name: string) => `Agent "${name}" does not have the document_search tool enabled.`;

/**
 * The agent-facing gate, one place for every path an agent searches through (the REST search,
 * and the ask pipeline): the agent exists and has the `document_search` tool. A refusal is
 * logged as a failed call: the agent asked and was refused, which an operator needs to see.
 */
export function gateDocumentSearch(agentId: number, input: { query: string; top_k: number }): void {
  const agent = getAgent(agentId);
  if (agent.tools.includes("document_search")) return;
  const message = NOT_ENABLED(agent.name);
  logToolCall({ agentId, tool: "document_search", input, ok: false, error: message, latencyMs: 0, resultCount: 0 });
  throw forbidden(message);
}

/** The `document_search` tool: gated per agent, every call logged, ok or not. */
export async function documentSearchTool(agentId: number, query: string, topK: number): Promise<SearchResult[]> {
  const input = { query, top_k: topK };
  gateDocumentSearch(agentId, input);
  return logged(agentId, "api", input, () => searchAgentDocuments(agentId, query, topK), (r) => r.length);
}

/** Runs a search and logs it as a tool call with its source, latency and result count, ok or not. */
export async function logged<T>(
  agentId: number,
  source: ToolCallSource,
  input: { query: string; top_k: number },
  run: () => Promise<T>,
  count: (result: T) => number,
): Promise<T> {
  const started = performance.now();
  try {
    const result = await run();
    logToolCall({ agentId, tool: "document_search", source, input, ok: true, latencyMs: performance.now() - started, resultCount: count(result) });
    return result;
  } catch (err) {
    // Stored and shown in the log view: the app's own words, never a library's.
    const message =
      err instanceof AppError || err instanceof EmbeddingError
        ? err.message
        : isVectorStoreUnavailable(err)
          ? vectorStoreUnavailable().message
          : "The search failed on the server; the details are in its log.";
    logToolCall({ agentId, tool: "document_search", source, input, ok: false, error: message, latencyMs: performance.now() - started, resultCount: 0 });
    throw err;
  }
}

export interface DocumentRank {
  /** 1-based rank of the document's closest chunk among all the agent's chunks. */
  rank: number;
  distance: number;
  chunk_index: number;
}

export type { RankedChunk };

/** The whole ranking of an agent's chunks for each query, with no k limit (recall runs). */
export async function rankAllChunks(agentId: number, queries: string[]): Promise<RankedChunk[][]> {
  return (await retrieve(agentId, queries, { topK: 0, full: true })).rankings;
}

/** Best rank of each document in one full ranking, keyed by document id. */
export function bestRanks(ranking: RankedChunk[]): Map<number, DocumentRank> {
  const best = new Map<number, DocumentRank>();
  ranking.forEach((r, i) => {
    if (!best.has(r.document_id)) best.set(r.document_id, { rank: i + 1, distance: r.score, chunk_index: r.chunk_index });
  });
  return best;
}
