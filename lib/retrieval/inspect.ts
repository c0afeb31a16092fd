import "server-only";
import { AgentView, type AgentRef } from "../db/agent-view";
import { embedder } from "../embeddings/configured";
import type { RetrievalMode } from "../validations/agent";
import { collectionFor } from "../vector-store/client";
import { findDocument, sourceUrlsOf } from "../db/documents";
import { draftVersionOf } from "../db/drafts";
import { chunkKey, documentChunks } from "../db/chunks";
import type { QueryWord } from "../embeddings";
import { rerankFor } from "./rerank";
import { keywordPlace } from "./modes";
import { beyondCut, noMatchCut } from "./cut";
import { embedForAgent, explainQueryForAgent, locate, logged } from "./retrieve";
import { rankedResults, readResults } from "./read-path";
import { poolSize, type InspectedResult } from "./read-types";
import { exactCheck, exactRanksOf, missesAgainst, withText, type IndexMiss } from "./inspect-misses";

export const CHART_RESULTS = 50;

export interface ExpectedDiagnosis {
  document_id: number;
  filename: string;
  /** False when the document is gone or not ready: it cannot be retrieved at all. */
  indexed: boolean;
  /**
   * Where its best chunk stands in the vector ranking the results come from; when the index did
   * not return that chunk, its place in the exact ranking.
   */
  best_rank: number | null;
  best_distance: number | null;
  /**
   * Every chunk with its exact distance, closest first. `rank` is exact for the best chunk and
   * for any chunk within the ranked depth; null for chunks farther down.
   */
  chunks: { chunk_index: number; rank: number | null; distance: number; chunk_text: string; unreachable: boolean }[];
  /** Its best chunk is among `index_misses`: within top_k by exact distance, yet not returned by the vector index. */
  index_miss: IndexMiss | null;
  /** How many of the closest chunks were ranked to place this document. */
  ranked_depth: number;
  /** Chunks of this document the index cannot return for any query (repair them on the Index health page). */
  unreachable_chunks: number;
  /** Its best chunk is farther than the agent's no-match cut: the search drops it at any top_k. */
  beyond_cut: boolean;
  /** The document is served, but the metadata filter does not match it: no top_k of this search returns it. */
  filtered_out: boolean;
  /**
   * Where its best keyword-matching chunk stands among the agent's keyword matches (null: none of
   * its chunks shares a word with the query), that chunk's bm25, and the best fused (hybrid) rank
   * of its chunks (approximate past the first results of either list).
   */
  keyword: {
    rank: number | null;
    bm25: number | null;
    fused_rank: number | null;
    /** Why the keyword matches were not ranked (an inspection in vector mode whose words match too many chunks); absent when they were. */
    not_ranked?: string;
  };
}

export interface Inspection {
  /** The mode the results are ranked in (the agent's unless another was asked for). */
  mode: RetrievalMode;
  /**
   * The reranker that ordered the results (null: none), by version, and how many of the mode's
   * first results it reordered; each result then has its `rerank_score`, its `pool_rank` before
   * and the `rerank_features` that moved its score most.
   */
  reranker: { name: string; version: string; candidates: number } | null;
  /** The metadata filter the search ranked under (null: none), and how many documents it matched. */
  filter: Record<string, unknown> | null;
  filter_matched_documents: number | null;
  /**
   * The first top_k chunks of the ranking below: what the agent's search returns for this query
   * and k, except that the search drops those farther than `cut`.
   */
  results: InspectedResult[];
  /** The page each result's document was fetched from (document id → URL), for those synced from a source. */
  source_urls: Record<number, string>;
  /** The agent's no-match cut in effect (null: none); results past it are marked in the page. */
  cut: number | null;
  /** The cut the agent has but that does not apply, set for another embedding model than the configured one. */
  stale_cut: { max_distance: number; model: string } | null;
  total_chunks: number;
  /** Distances of the first results, closest first, for the distance chart. */
  distances: number[];
  expected: ExpectedDiagnosis | null;
  /** The query's words with how much each counts in this agent (local embedder); null otherwise. */
  query_words: QueryWord[] | null;
  /** The vector ranking is exact (every chunk of the agent scored), so no nearer chunk can be missing. */
  ranked_exactly: boolean;
  /** Not ranked exactly, and no exact ranking to check it against (its vectors not copied yet, or an index in another space). */
  exact_unavailable: boolean;
  /**
   * Chunks of the exact top_k that the vector ranking's top_k (in vector mode: the results) lacks
   * although they are nearer than one of its results: approximate-search misses, closest first.
   */
  index_misses: IndexMiss[];
}

/**
 * Everything the inspector shows for one query, from one embedding and one read of the ranking:
 * the top_k list is the head of the same ranking the diagnosis counts against, so the two cannot
 * disagree at the cut. The expected document's chunks get their exact distances from their stored
 * vectors, and the ranking is read only as deep as its best chunk needs (see locate). Where the
 * agent is not ranked exactly, the list is checked against the exact ranking, and every chunk the
 * vector index left out of the top_k although nearer than a result is named (index_misses). Works
 * with the agent's tool switched off, so an admin can test an agent before enabling it; logged as
 * an inspector search, not as the agent's call.
 */
export async function inspectQuery(
  ref: AgentRef,
  query: string,
  topK: number,
  expectedDocumentId?: number,
  asMode?: RetrievalMode,
): Promise<Inspection> {
  const view = AgentView.of(ref);
  const { agent } = view;
  const agentId = agent.id;
  const model = embedder().model;
  const cut = noMatchCut(agent, model);
  const mode = asMode ?? agent.retrieval_mode;
  const rerank = rerankFor(agent);
  const named = expectedDocumentId === undefined ? undefined : findDocument(agentId, expectedDocumentId);
  // Through a draft, the expected document is the draft's version of it where the draft changes it.
  const doc = named && view.draft?.removed.has(named.id) ? (draftVersionOf(view.draft.id, named.filename) ?? named) : named;
  const ready = doc !== undefined && view.admitted([doc.id]).has(doc.id);
  const filteredOut = doc !== undefined && !ready && view.scope !== undefined && view.unfiltered().admitted([doc.id]).has(doc.id);
  const filter = view.scope?.filter.where ?? null;
  // Deep enough for the chart and for the reranker's pool.
  const window = Math.max(topK, CHART_RESULTS, rerank?.candidates ?? 0);
  const {
    results,
    location,
    check,
    vector: vectorOf,
  } = await logged(
    view,
    "inspector",
    filter ? { query, top_k: topK, filter } : { query, top_k: topK },
    async () => {
      if (view.readyChunkCount() === 0) return { results: [], location: null, check: null, vector: null };
      const { model, vectors } = await embedForAgent(view, [query]);
      const collection = await collectionFor(model);
      // The exact check scans the agent's copy here while Chroma answers the ranking in its own
      // process: for an agent past the exact limit the two take about as long (docs/performance.md).
      const [[location], check] = await Promise.all([
        locate(view, collection, vectors, [ready ? [doc.id] : []], window),
        exactCheck(view, collection, model.model, vectors[0], window, ready ? [doc.id] : []),
      ]);
      // The results are the head just located, ranked on; other modes read their own lists. The
      // cut is left to the page, which marks what it drops.
      const read = { agent: view, collection, model: model.model, vectors, queries: [query] };
      const opts = { mode, topK, cut: null, rerank };
      // The head located reaches the reranker's pool: it is read as deep as max(top_k, CHART_RESULTS).
      const [results] =
        mode === "vector" && location.head.length >= Math.min(poolSize(opts), view.readyChunkCount())
          ? await rankedResults(read, [location.head], opts, true)
          : (await readResults(read, opts, true)).results;
      return { results, location, check, vector: vectors[0] };
    },
    (r) => r.results.length,
  );

  const indexMisses = location && check?.exact ? withText(agentId, missesAgainst(location.head, check.exact, topK)) : [];
  let expected: ExpectedDiagnosis | null = null;
  if (expectedDocumentId !== undefined) {
    // A chunk the index did not return although nearer than its last result is placed in the exact
    // ranking; a compact check ranked only the first results, so those chunks are ranked now.
    const unplaced = (location?.chunks ?? []).filter((c) => c.unreachable);
    if (check && check.ranks === null && unplaced.length > 0)
      check.ranks = (await exactRanksOf(view, model, vectorOf!, unplaced)) ?? new Map();
    const texts = new Map(ready ? documentChunks(doc.id).map((c) => [c.chunk_index, c.text]) : []);
    const chunks = (location?.chunks ?? []).map((c) => ({
      chunk_index: c.chunk_index,
      // A chunk the index did not return has no place in its ranking; the exact one gives it its own.
      rank: c.unreachable ? (check?.ranks?.get(chunkKey(c.document_id, c.chunk_index)) ?? c.rank) : c.rank,
      distance: c.distance,
      chunk_text: texts.get(c.chunk_index) ?? "",
      unreachable: c.unreachable,
    }));
    expected = {
      document_id: doc?.id ?? expectedDocumentId,
      filename: doc?.filename ?? `document ${expectedDocumentId}`,
      indexed: ready && chunks.length > 0,
      best_rank: chunks[0]?.rank ?? null,
      best_distance: chunks[0]?.distance ?? null,
      chunks,
      index_miss: indexMisses.find((m) => m.document_id === doc?.id && m.chunk_index === chunks[0]?.chunk_index) ?? null,
      ranked_depth: location?.depth ?? 0,
      unreachable_chunks: chunks.filter((c) => c.unreachable).length,
      beyond_cut: beyondCut(chunks[0]?.distance ?? null, cut),
      filtered_out: filteredOut,
      keyword: ready
        ? keywordPlace(view, model, query, doc.id, location?.head ?? [], chunks[0]?.rank ?? null, mode)
        : { rank: null, bm25: null, fused_rank: null },
    };
  }
  const explained = await explainQueryForAgent(view, query);
  return {
    mode,
    reranker: rerank ? { name: rerank.reranker.name, version: rerank.reranker.version, candidates: rerank.candidates } : null,
    filter,
    filter_matched_documents: view.scope?.documents.size ?? null,
    results,
    source_urls: sourceUrlsOf(
      agentId,
      results.map((r) => r.document_id),
    ),
    cut,
    stale_cut:
      cut === null && agent.max_distance !== null
        ? { max_distance: agent.max_distance, model: agent.max_distance_model ?? "another model" }
        : null,
    total_chunks: view.readyChunkCount(),
    distances: (location?.head ?? []).slice(0, CHART_RESULTS).map((r) => r.score),
    expected,
    query_words: explained?.words ?? null,
    // An agent with no chunks has nothing the index could miss.
    ranked_exactly: check?.ranked_exactly ?? true,
    exact_unavailable: check?.exact_unavailable ?? false,
    index_misses: indexMisses,
  };
}
