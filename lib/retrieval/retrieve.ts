import "server-only";
import { beyondCut, noMatchCut } from "./cut";
import { rankByMode } from "./modes";
import type { RetrievalMode } from "../validations/agent";
import { resolveAgent, type AgentRef } from "../db/agents";
import { agentCorpusStats } from "./corpus-stats";
import { agentChunkCount, embeddingModelsInUse } from "../db/documents";
import { chunkIndexes, chunkKey } from "../db/chunks";
import { embedder } from "../embeddings/configured";
import { EmbeddingError, type QueryWord } from "../embeddings";
import { chunkId, collectionFor } from "../vector-store/client";
import { AppError, describeFailure, forbidden } from "../core/errors";
import { logToolCall, type ToolCallSource } from "../db/tool-calls";
import { agentVectors, closestFirst, cosineDistance, type RankedChunk, type StoredVector } from "../vector-store/chunks";
import type { Collection } from "../vector-store/client";
import { exactPlaces, exactVectors } from "./exact";
import { refusedByCut, traced, type RetrievalTrace } from "../core/trace";
import { CANDIDATE_DEPTH, resultsWithText, retryRace, servedNearest, visibleOnly, type SearchResult } from "./served";

export { CANDIDATE_DEPTH, resultsWithText, servedNearest, visibleOnly, type SearchResult };


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
 * The one retrieval function, in the agent's retrieval mode (or `mode`; keyword and hybrid in
 * lib/retrieval/modes.ts). In vector mode: embed the queries with the model that embedded the chunks
 * (weighted by the agent's own chunks where the provider does that), query the shared
 * collection filtered to this agent, closest first, and keep chunks of ready documents only,
 * then drop the top_k hits past the agent's no-match cut (none left: no match). Chroma returns
 * ids and distances; the text of the hits is read from SQLite.
 */
export async function retrieve(
  agentRef: AgentRef,
  queries: string[],
  opts: { topK: number; mode?: RetrievalMode; trace?: RetrievalTrace[] },
): Promise<SearchResult[][]> {
  const agent = resolveAgent(agentRef);
  const agentId = agent.id;
  const setting = (model: string) => ({ model, mode: opts.mode ?? agent.retrieval_mode, cut: noMatchCut(agent, model), top_k: opts.topK });
  if (queries.length === 0 || agentChunkCount(agentId) === 0) {
    opts.trace?.push(...queries.map(() => ({ ...setting(embedder().model), best: null, nearest: null, results: [] })));
    return queries.map(() => []);
  }
  const { model, vectors } = await embedForAgent(agentId, queries);
  const { mode, cut } = setting(model.model);
  const collection = await collectionFor(model);
  const nearest: (RankedChunk | null)[] = queries.map(() => null);
  let results: SearchResult[][];
  if (mode !== "vector") {
    results = await rankByMode(agentId, mode, { collection, model }, queries, vectors, opts.topK, cut, nearest);
  } else {
    const { kept } = await visibleOnly(agentId, queries.length, opts.topK, (n) => servedNearest(agentId, collection, model.model, vectors, n));
    kept.forEach((hits, q) => (nearest[q] = hits[0] ?? null));
    results = kept.map((hits) => resultsWithText(agentId, hits.slice(0, opts.topK).filter((h) => !beyondCut(h.score, cut))));
  }
  if (opts.trace) {
    // The nearest chunk is the first result unless the cut dropped it (or another mode put another first): only those are read.
    const same = (q: number) => results[q][0] && nearest[q] && chunkKey(results[q][0].document_id, results[q][0].chunk_index) === chunkKey(nearest[q]!.document_id, nearest[q]!.chunk_index);
    const unread = nearest.filter((n, q) => n !== null && !same(q)) as RankedChunk[];
    const named = new Map(resultsWithText(agentId, unread).map((r) => [chunkKey(r.document_id, r.chunk_index), traced(r)]));
    const near = (q: number) => (same(q) ? traced(results[q][0]) : nearest[q] && named.get(chunkKey(nearest[q]!.document_id, nearest[q]!.chunk_index))) ?? null;
    opts.trace.push(...results.map((r, q) => ({ ...setting(model.model), best: nearest[q]?.score ?? null, nearest: near(q), results: r.map(traced) })));
  }
  return results;
}

/** Where one chunk of a looked-for document stands for one query. */
export interface LocatedChunk {
  document_id: number;
  chunk_index: number;
  /** Exact distance from the query to this chunk, measured directly (not through the index). */
  distance: number;
  /**
   * 1 + the ready chunks of the agent closer to the query: the top_k that retrieves it. Exact
   * for each document's best chunk; null for a chunk farther than the ranking had to be read.
   */
  rank: number | null;
  /** Closer than chunks the index returned, yet not among them: the index cannot return it. */
  unreachable: boolean;
}

export interface Location {
  /** The ready chunks closest to the query, in order: at least `window` when the agent has them. */
  head: RankedChunk[];
  /** Every chunk of the looked-for documents, closest first. */
  chunks: LocatedChunk[];
  /** How far down the index was read: ranks up to here are exact. */
  depth: number;
}

/** The distance of the farthest of the documents' closest chunks: how deep the ranking must be read. */
function deepestBest(chunks: RankedChunk[]): number {
  const best = new Map<number, number>();
  for (const c of chunks) if (!best.has(c.document_id)) best.set(c.document_id, c.score); // closest first
  return best.size === 0 ? Number.NEGATIVE_INFINITY : Math.max(...best.values());
}

/**
 * Where the chunks of given documents rank for each query, without ranking every chunk of the
 * agent: their exact distances are computed from their stored vectors, and the ranking is
 * read only as deep as each document's closest chunk needs (from `window`, four times deeper
 * each round). So each document's best rank is exact and unlimited, and a chunk the index
 * cannot reach still gets its distance.
 * `targets[q]` are ready document ids of this agent for query q.
 */
export async function locate(
  agentId: number,
  collection: Collection,
  vectors: number[][],
  targets: number[][],
  window: number,
): Promise<Location[]> {
  // Ranked exactly: one scan gives the head and every looked-for chunk's rank, with no k limit.
  const model = String(collection.metadata?.embedding_model ?? "");
  const ranked = collection.metadata?.distance_space === "cosine" ? await exactVectors(agentId, model) : null;
  if (ranked) {
    return (await exactPlaces(ranked, model, vectors, Math.max(1, window), targets)).map((p) => ({
      head: p.head,
      depth: ranked.chunks,
      chunks: p.chunks.map((c) => ({ document_id: c.document_id, chunk_index: c.chunk_index, distance: c.score, rank: c.rank, unreachable: false })),
    }));
  }
  // Every looked-for chunk's stored vector, read once for all the queries, and each query's
  // exact distance to it computed here: no walk of the index is involved.
  const wanted = [...new Set(targets.flat())];
  const stored = new Map<number, StoredVector[]>();
  for (const v of await retryRace(() => agentVectors(collection, agentId, chunkIndexes(wanted).map((c) => chunkId(c.document_id, c.chunk_index))))) {
    stored.set(v.document_id, [...(stored.get(v.document_id) ?? []), v]);
  }
  const exact: RankedChunk[][] = vectors.map((vector, q) =>
    targets[q]
      .flatMap((id) => stored.get(id) ?? [])
      .map((v) => ({ document_id: v.document_id, chunk_index: v.chunk_index, score: cosineDistance(vector, v.embedding) }))
      .sort(closestFirst),
  );

  const out: Location[] = vectors.map(() => ({ head: [], chunks: [], depth: 0 }));
  let pending = vectors.map((_, q) => q);
  // Chroma is asked CANDIDATE_DEPTH deep whatever the window (servedNearest): the first read
  // keeps all it returns, so a document within that depth costs no second query (a second
  // filtered query is a second of Chroma's time past 1,000,000 chunks: docs/performance.md).
  let want = Math.max(1, window, CANDIDATE_DEPTH);
  const total = agentChunkCount(agentId);
  while (pending.length > 0) {
    const { kept, raw, asked } = await visibleOnly(agentId, pending.length, want, (n) =>
      servedNearest(agentId, collection, model, pending.map((q) => vectors[q]), n),
    );
    const again: number[] = [];
    pending.forEach((q, i) => {
      const last = raw[i].at(-1)?.score ?? Number.POSITIVE_INFINITY;
      const exhausted = raw[i].length < asked || want >= total;
      if (!exhausted && last < deepestBest(exact[q])) {
        again.push(q); // a looked-for document's closest chunk lies deeper than this read
        return;
      }
      const head = kept[i];
      const returned = new Map(raw[i].map((h) => [chunkId(h.document_id, h.chunk_index), h.score]));
      out[q] = {
        head,
        depth: exhausted ? total : head.length,
        chunks: exact[q]
          .map((c) => {
            const id = chunkId(c.document_id, c.chunk_index);
            // Where the index returned the chunk, its own figure is shown, as in the results.
            const distance = returned.get(id) ?? c.score;
            const within = exhausted || distance <= last;
            // Ahead of it: the chunks before it in ranking order (closer, or as close and first by document and chunk).
            const here = { document_id: c.document_id, chunk_index: c.chunk_index, score: distance };
            const closer = head.filter((h) => closestFirst(h, here) < 0).length;
            return {
              document_id: c.document_id,
              chunk_index: c.chunk_index,
              distance,
              rank: within ? 1 + closer : null,
              unreachable: within && !returned.has(id) && distance < last - 1e-6,
            };
          })
          .sort((a, b) => a.distance - b.distance || a.document_id - b.document_id || a.chunk_index - b.chunk_index),
      };
    });
    pending = again;
    want *= 4;
  }
  return out;
}

/** The top_k chunks for one query: what the agent's `document_search` tool returns. */
export async function searchAgentDocuments(agent: AgentRef, query: string, topK: number, trace?: RetrievalTrace[]): Promise<SearchResult[]> {
  return (await retrieve(agent, [query], { topK, trace }))[0];
}

const NOT_ENABLED = (name: string) => `Agent "${name}" does not have the document_search tool enabled.`;

/**
 * The agent-facing gate, one place for every path an agent searches through (the REST search,
 * and the ask pipeline): the agent exists and has the `document_search` tool. A refusal is
 * logged as a failed call: the agent asked and was refused, which an operator needs to see.
 */
export function gateDocumentSearch(agentRef: AgentRef, input: { query: string; top_k: number }): void {
  const agent = resolveAgent(agentRef);
  if (agent.tools.includes("document_search")) return;
  const message = NOT_ENABLED(agent.name);
  logToolCall({ agentId: agent.id, logQuestions: agent.log_questions, tool: "document_search", input, ok: false, error: message, latencyMs: 0, resultCount: 0 });
  throw forbidden(message);
}

/** The `document_search` tool: gated per agent, every call logged, ok or not. */
export async function documentSearchTool(agentRef: AgentRef, query: string, topK: number): Promise<SearchResult[]> {
  const agent = resolveAgent(agentRef);
  const input = { query, top_k: topK };
  gateDocumentSearch(agent, input);
  const trace: RetrievalTrace[] = [];
  return logged(agent, "api", input, () => searchAgentDocuments(agent, query, topK, trace), (r) => r.length, trace);
}

/** Runs a search and logs it as a tool call with its source, latency and result count, ok or not. */
export async function logged<T>(
  agentRef: AgentRef,
  source: ToolCallSource,
  input: { query: string; top_k: number },
  run: () => Promise<T>,
  count: (result: T) => number,
  trace?: RetrievalTrace[],
): Promise<T> {
  const agent = typeof agentRef === "number" ? null : agentRef;
  const agentId = typeof agentRef === "number" ? agentRef : agentRef.id;
  const logQuestions = agent?.log_questions;
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
    logToolCall({ agentId, logQuestions, tool: "document_search", source, input, ok: false, error: failureMessage(err, "search"), latencyMs: performance.now() - started, resultCount: 0 });
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
export async function rankAllChunks(agentId: number, queries: string[]): Promise<RankedChunk[][]> {
  if (queries.length === 0 || agentChunkCount(agentId) === 0) return queries.map(() => []);
  const { model, vectors } = await embedForAgent(agentId, queries);
  const collection = await collectionFor(model);
  return (await visibleOnly(agentId, queries.length, Number.MAX_SAFE_INTEGER, (n) => servedNearest(agentId, collection, model.model, vectors, n))).kept;
}

/** Best rank of each document in one full ranking, keyed by document id. */
export function bestRanks(ranking: RankedChunk[]): Map<number, { rank: number; distance: number; chunk_index: number }> {
  const best = new Map<number, { rank: number; distance: number; chunk_index: number }>();
  ranking.forEach((r, i) => {
    if (!best.has(r.document_id)) best.set(r.document_id, { rank: i + 1, distance: r.score, chunk_index: r.chunk_index });
  });
  return best;
}
