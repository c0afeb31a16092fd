import "server-only";
import { isVectorStoreUnavailable } from "../vector-store/client";
import type { RankedChunk } from "../vector-store/chunks";
import type { AgentView } from "../db/agent-view";
import { chunkKey, pageRangeOf } from "../db/chunks";
import { AppError } from "../core/errors";
import { traced, type RetrievalTrace } from "../core/trace";
import { reranked } from "./rerank";
import { shownChunks } from "./shown-chunks";
import { belowRerankCut, beyondCut } from "./cut";
import { compactVectors, exactLimit, exactNearest, exactVectors, narrowed, searched, type AgentVectors } from "./exact";
import { compactPlaces } from "./compact";
import { queryAgent } from "./index-candidates";
import { fusedWithKeywords, readDepth } from "./modes";
import {
  poolSize,
  type PlacedChunk,
  type RankStage,
  type ReadContext,
  type ReadOptions,
  type ReadTarget,
  type SearchResult,
} from "./read-types";

/**
 * The read path: how the search, the inspector, evaluation runs and ask read an agent's chunks,
 * as stages in this order, each a function of what the one before it handed on.
 *
 *   1. candidates  the nearest chunks of each query, from the agent's exact table
 *                  (lib/retrieval/exact.ts), or from Chroma's index with what it cannot return
 *                  ranked around it (lib/retrieval/index-candidates.ts)
 *   2. visibility  only the candidates every ADMIT check lets through (chunks of ready
 *                  documents), read again deeper while others crowd them out
 *   3. ranking     the RANKING stages in turn: the agent's retrieval mode (the vector order, or
 *                  fused with the keyword matches: lib/retrieval/modes.ts), then its reranker,
 *                  which orders the mode's first `rerank_candidates` (lib/retrieval/rerank.ts), and top_k
 *   4. cut         the no-match cut: results farther than the agent's max_distance are dropped
 *   5. results     the text and document name of what is left, and the trace: the nearest
 *                  admitted chunk before ranking and the cut, for the log and the inspector
 *
 * A metadata filter narrows the view itself (AgentView.filtered): the candidates are read among
 * the matching documents only (an exact scan scores only their rows; the keyword side matches
 * only their chunks), and ADMIT checks it again, before any top_k. locate
 * (lib/retrieval/locate.ts) reads stages 1 and 2 as deep as a looked-for document needs; the
 * inspector's check reads the exact ranking beside them (lib/retrieval/inspect-misses.ts, with
 * the compact table of lib/retrieval/compact.ts).
 */

export type { SearchResult };

/** Reads the `n` nearest candidates of each query vector, closest first. */
export type CandidateRead = (n: number) => Promise<RankedChunk[][]>;

/**
 * How deep Chroma's list is read for an agent that is not ranked exactly; its distances are exact
 * for what it returns, so the deeper list, sorted, puts nearer chunks it found only past top_k
 * back in front. From `npm run bench:exact`: reading 20-100 deep returned the same top 10 as
 * reading 10 (Chroma searches 100 wide anyway); 200 raised recall@10 at every size measured
 * (docs/performance.md, 'Exact ranking, measured').
 */
export const CANDIDATE_DEPTH = 200;

/**
 * Stage 1, the candidates the agent is served: the `n` nearest of its chunks for each query
 * vector, closest first. Exact where the agent's vectors are copied: within EXACT_MAX_CHUNKS from
 * its table of float32 vectors (lib/retrieval/exact.ts), past it from its compact table with the
 * exact re-score (lib/retrieval/compact.ts) once that is held; otherwise Chroma's query read
 * CANDIDATE_DEPTH deep.
 */
export function servedCandidates(target: ReadTarget): CandidateRead {
  return async (n) => {
    const served = await servedTable(target);
    if (served?.table?.precision === "i8")
      return (
        await compactPlaces(
          served,
          target.model,
          target.vectors,
          n,
          target.vectors.map(() => []),
        )
      ).map((p) => p.head);
    if (served) return exactNearest(served, target.model, target.vectors, n);
    return (await queryAgent(target.collection, target.agent, target.vectors, Math.max(n, CANDIDATE_DEPTH))).map((hits) =>
      hits.slice(0, n),
    );
  };
}

/**
 * The table the agent is ranked from exactly: its float32 table within EXACT_MAX_CHUNKS (or the
 * copy streamed), its compact table past it (narrowed to a filter's documents) once held; null
 * when Chroma's index serves it (not a cosine index, a copy missing, or the compact table loading
 * or refused for memory: Index health says which). A filtered view past the limit without its
 * compact table is ranked exactly too, its matching documents' copies read from SQLite.
 */
export async function servedTable(target: Pick<ReadTarget, "agent" | "collection" | "model">): Promise<AgentVectors | null> {
  if (target.collection.metadata?.distance_space !== "cosine") return null;
  const { agent } = target;
  const all = agent.scope ? agent.unfiltered() : agent;
  const large = !agent.draft && exactLimit() > 0 && all.readyChunkCount() > exactLimit();
  searched(agent.id, target.model, large);
  if (large) {
    const compact = await compactVectors(all, target.model);
    if (compact) return agent.scope ? narrowed(compact, agent.scope.documents) : compact;
    if (!agent.scope) return null;
  }
  return exactVectors(agent, target.model);
}

/** Chroma's index alone, read `n` deep: what the index-recall monitor compares the served ranking with. */
export const indexCandidates =
  (target: ReadTarget): CandidateRead =>
  (n) =>
    queryAgent(target.collection, target.agent, target.vectors, n);

/**
 * Chroma can fail a query that races a delete (the hit's record is gone by the time it is
 * read); asking again sees the index without it. Unreachable or hung is not retried here.
 */
export async function retryRace<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= 3 || isVectorStoreUnavailable(err) || err instanceof AppError) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}

/** A check of stage 2: which hits of one read a search may return, looked up once for all of them. */
export type Admit = (target: ReadTarget, raw: RankedChunk[][]) => (hit: RankedChunk) => boolean;

/** Chunks of the agent's ready documents. Read after the query: a document removed meanwhile is not shown. */
const readyDocuments: Admit = (target, raw) => {
  const visible = target.agent.admitted(raw.flatMap((hits) => hits.map((h) => h.document_id)));
  return (hit) => visible.has(hit.document_id);
};

/** What a candidate must be to be returned, in order. */
const ADMIT: Admit[] = [readyDocuments];

export interface Visible {
  kept: RankedChunk[][];
  /** Each query's read as the candidates came, before ADMIT: where the index stopped, and whether it ran out. */
  raw: RankedChunk[][];
  /** How many candidates per query the last read asked for. */
  asked: number;
}

/**
 * Stage 2: `want` admitted candidates per query. The shared collection also holds vectors no
 * ready document owns (one still indexing, a failed or deleted one awaiting clean-up), so that
 * many more are read, the others are dropped, and in the rare case that still leaves too few
 * (they changed meanwhile) the candidates are read again, deeper.
 */
export async function visibleOnly(target: ReadTarget, want: number, read: CandidateRead): Promise<Visible> {
  const { agent } = target;
  const none = () => target.vectors.map((): RankedChunk[] => []);
  if (target.vectors.length === 0 || agent.readyChunkCount() === 0) return { kept: none(), raw: none(), asked: 0 };
  let n = Math.min(want, agent.readyChunkCount()) + agent.hiddenVectors();
  for (let retries = 0; ;) {
    const raw = await retryRace(() => read(n));
    const admits = ADMIT.map((admit) => admit(target, raw));
    // Read again after the query, as readiness is: with a document removed meanwhile there are
    // fewer chunks to find, and the request's earlier count would send the loop asking for them.
    const goal = Math.min(want, agent.chunkCountNow());
    const kept = raw.map((hits) => hits.filter((h) => admits.every((ok) => ok(h))));
    if (kept.every((hits) => hits.length >= goal)) return { kept, raw, asked: n };
    if (raw.some((hits, q) => hits.length === n && kept[q].length < goal)) {
      n *= 2; // crowded out by vectors of documents that are not ready
    } else if (retries++ >= 2) {
      return { kept, raw, asked: n }; // the agent's vectors are incomplete (the audit reports it)
    } else {
      // Chroma answered with fewer than it holds: a removal was running meanwhile. Ask again.
      await new Promise((r) => setTimeout(r, 25 * retries));
    }
  }
}

/**
 * The agent's retrieval mode: the vector order as it is, or fused with the keyword matches; the
 * first top_k, or the reranker's pool (its `rerank_candidates`) when one follows.
 */
export const inMode: RankStage = async (read, lists, opts) => {
  const n = poolSize(opts);
  return opts.mode === "vector" ? lists.map((hits) => hits.slice(0, n)) : fusedWithKeywords(read, lists, opts.mode, n);
};

/** Stage 3, in order: the mode, then the reranker (lib/retrieval/rerank.ts), which orders the pool and cuts it to top_k. */
const RANKING: RankStage[] = [inMode, reranked];

/** Stage 4: drops what is farther than the no-match cut, and what the reranker scored below its own cut. */
export const withinCut = (lists: PlacedChunk[][], cut: number | null, rerankCut: number | null = null): PlacedChunk[][] =>
  lists.map((hits) => hits.filter((h) => !beyondCut(h.score, cut) && !(h.rerank && belowRerankCut(h.rerank.rerank_score, rerankCut))));

/**
 * Stage 5: text and document name for ranked chunks; a chunk whose document is gone or not ready
 * is left out. `placed`: each result also says where the reranker put it (the inspector's view;
 * the search answer keeps the seed's shape).
 */
export function resultsWithText(agent: AgentView, ranked: PlacedChunk[], placed = false): SearchResult[] {
  const rows = shownChunks(agent, ranked);
  return ranked.flatMap((r): SearchResult[] => {
    const row = rows.get(chunkKey(r.document_id, r.chunk_index));
    if (!row) return [];
    const result = { chunk_text: row.text, score: r.score, document_id: r.document_id, filename: row.filename, chunk_index: r.chunk_index };
    const pages = pageRangeOf(row);
    const extra = { ...(row.context ? { context: row.context } : {}), ...(pages ? { pages } : {}) };
    return [{ ...result, ...extra, ...r.places, ...(placed ? r.rerank : undefined) }];
  });
}

/** Stage 3 alone: each query's ranked list before the cut. */
export async function ranked(read: ReadContext, kept: RankedChunk[][], opts: ReadOptions): Promise<PlacedChunk[][]> {
  let lists: PlacedChunk[][] = kept;
  for (const stage of RANKING) lists = await stage(read, lists, opts);
  return lists;
}

/** Stages 3 to 5 on admitted candidates (the inspector's vector results run them on the head it located; `placed` as in resultsWithText). */
export async function rankedResults(
  read: ReadContext,
  kept: RankedChunk[][],
  opts: ReadOptions,
  placed = false,
): Promise<SearchResult[][]> {
  return withinCut(await ranked(read, kept, opts), opts.cut, opts.rerankCut ?? null).map((hits) =>
    resultsWithText(read.agent, hits, placed),
  );
}

/** One search's read through every stage: each query's results, and its nearest admitted chunk before ranking and the cut. */
export async function readResults(
  read: ReadContext,
  opts: ReadOptions,
  placed = false,
): Promise<{ results: SearchResult[][]; nearest: (RankedChunk | null)[] }> {
  const { kept } = await visibleOnly(read, readDepth(opts.mode, poolSize(opts)), servedCandidates(read));
  return { results: await rankedResults(read, kept, opts, placed), nearest: kept.map((hits) => hits[0] ?? null) };
}

/** The trace of each query's read: its settings, the nearest chunk before the cut (named), and the results. */
export function traces(
  agent: AgentView,
  setting: Pick<RetrievalTrace, "model" | "mode" | "cut" | "top_k" | "reranker" | "rerank_cut">,
  nearest: (RankedChunk | null)[],
  results: SearchResult[][],
): RetrievalTrace[] {
  // The nearest chunk is the first result unless the cut dropped it (or another mode put another first): only those are read.
  const same = (q: number) =>
    results[q][0] &&
    nearest[q] &&
    chunkKey(results[q][0].document_id, results[q][0].chunk_index) === chunkKey(nearest[q]!.document_id, nearest[q]!.chunk_index);
  const unread = nearest.filter((n, q) => n !== null && !same(q)) as RankedChunk[];
  const named = new Map(resultsWithText(agent, unread).map((r) => [chunkKey(r.document_id, r.chunk_index), traced(r)]));
  const near = (q: number) =>
    (same(q) ? traced(results[q][0]) : nearest[q] && named.get(chunkKey(nearest[q]!.document_id, nearest[q]!.chunk_index))) ?? null;
  return results.map((r, q) => ({ ...setting, best: nearest[q]?.score ?? null, nearest: near(q), results: r.map(traced) }));
}
