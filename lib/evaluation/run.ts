import "server-only";
import { getAgent } from "../db/agents";
import { AgentView, type AgentRef } from "../db/agent-view";
import { collectionFor } from "../vector-store/client";
import { listDocuments, type DocumentRow } from "../db/documents";
import { compactState, exactLimit } from "../retrieval/exact";
import { embedder } from "../embeddings/configured";
import { AppError, BaseError, describeFailure, invalid, isVectorStoreUnavailable } from "../core/errors";
import { pairsToRun, type Pair } from "../db/pairs";
import type { PairSource } from "../validations/pair";
import { asAskedWith, embedForAgent, locate, type LocatedChunk } from "../retrieval/retrieve";
import { summarize } from "../core/metrics";
import { belowRerankCut, beyondCut, noMatchCut, rerankCutFor } from "../retrieval/cut";
import { keywordPlace, readDepth } from "../retrieval/modes";
import { inMode } from "../retrieval/read-path";
import type { PlacedChunk, ReadContext, ReadRerank } from "../retrieval/read-types";
import { rerankFor, rerankPools } from "../retrieval/rerank";
import { RETRIEVAL_MODES, type RetrievalMode } from "../validations/agent";
import type { RankedChunk } from "../vector-store/chunks";
import { NO_DOCUMENT } from "../validations/pair";
import { claim, type Claim } from "../core/one-at-a-time";
import { env } from "../env.mjs";
import {
  activeRuns,
  createRun,
  failRun,
  finishRun,
  getRun,
  pruneRuns,
  runResults,
  saveResults,
  type ChunkSetting,
  type EvalRun,
  type PairResult,
} from "../db/eval-runs";

/** Queries embedded and located per round trip: few enough to report progress often. */
export const EVAL_BATCH = 32;
/**
 * The same for an agent past EXACT_MAX_CHUNKS, which Chroma ranks: each request pays for the
 * agent filter once (about a second for 333,000 chunks of 1,000,000), then about 50 ms a query
 * at 200 deep, so larger requests make the run faster (docs/performance.md).
 */
export const EVAL_BATCH_CHROMA = 128;
/** Queries per round trip for this agent: Chroma's size while its index serves it, else one pass of the table's kernel. */
export const evalBatchFor = (ref: AgentRef, model: string): number => {
  const agent = AgentView.of(ref);
  if (agent.readyChunkCount() <= exactLimit()) return EVAL_BATCH;
  return compactState(agent.id, model).served === "compact" ? EVAL_BATCH : EVAL_BATCH_CHROMA;
};
/**
 * Batches located at the same time. Chroma answers one query request's vectors one after the
 * other on one core, after resolving the agent filter once, so two requests in flight keep two
 * cores busy (`npm run bench`, eval_1000_pairs_s).
 */
export const EVAL_CONCURRENCY = 2;
/** How deep the ranking is read first; it widens for a pair whose expected document lies deeper. */
const EVAL_WINDOW = 20;

function chunkSettings(docs: DocumentRow[]): ChunkSetting[] {
  const groups = new Map<string, ChunkSetting>();
  for (const d of docs) {
    const key = `${d.chunk_size}/${d.chunk_overlap}/${d.chunk_strategy}`;
    const g = groups.get(key) ?? {
      chunk_size: d.chunk_size,
      chunk_overlap: d.chunk_overlap,
      chunk_strategy: d.chunk_strategy,
      documents: 0,
    };
    g.documents++;
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.documents - a.documents);
}

/**
 * Where the expected document's best chunk landed, from its located chunks; several ready
 * versions of a filename count by the best one.
 */
export function pairOutcome(
  pair: Pair,
  located: LocatedChunk[],
  idsByFilename: Map<string, number[]>,
  at: { topDistance: number | null; cut: number | null } = { topDistance: null, cut: null },
): PairResult {
  const base = { pair_id: pair.id, query: pair.query, expected: pair.expected_filename, top_distance: at.topDistance };
  const none = { document_id: null, rank: null, best_distance: null, beyond_cut: false };
  if (pair.expected_filename === NO_DOCUMENT) return { ...base, ...none, missing: false, answerable: false };
  const ids = idsByFilename.get(pair.expected_filename);
  if (!ids) return { ...base, ...none, missing: true, answerable: true };
  // Closest first: the first located chunk is the best of all versions.
  const best = located.find((c) => c.rank !== null);
  const distance = best?.distance ?? null;
  return {
    ...base,
    document_id: best?.document_id ?? ids[0],
    rank: best?.rank ?? null,
    best_distance: distance,
    missing: false,
    beyond_cut: beyondCut(distance, at.cut),
    answerable: true,
  };
}

/** A message fit for the page and the API; internal details go to the server log only. */
function describe(err: unknown): string {
  if (!(err instanceof BaseError))
    console.error(isVectorStoreUnavailable(err) ? "evaluation stopped, vector store unavailable:" : "evaluation failed:", err);
  return describeFailure(err, "evaluation", { unavailable: "the evaluation stopped" });
}

/** A pair's rank in keyword or hybrid mode: the best of its document's versions in that list. */
function modeRank(
  agent: AgentView,
  pair: Pair,
  mode: Exclude<RetrievalMode, "vector">,
  location: { chunks: LocatedChunk[]; head: RankedChunk[] },
  idsByFilename: Map<string, number[]>,
): number | null {
  const ranks = (idsByFilename.get(pair.expected_filename) ?? []).map((id) => {
    const vectorRank = location.chunks.find((c) => c.document_id === id && c.rank !== null)?.rank ?? null;
    const place = keywordPlace(agent, embedder().model, pair.query, id, location.head, vectorRank);
    return mode === "keyword" ? place.rank : place.fused_rank;
  });
  const found = ranks.filter((r): r is number => r !== null);
  return found.length ? Math.min(...found) : null;
}

async function locatePairs(agent: AgentView, batch: Pair[], idsByFilename: Map<string, number[]>, window: number) {
  const queries = batch.map((p) => p.query);
  const { model, vectors } = await embedForAgent(agent, queries);
  const targets = batch.map((p) => idsByFilename.get(p.expected_filename) ?? []);
  const collection = await collectionFor(model);
  const located = await locate(agent, collection, vectors, targets, window);
  return { located, read: { agent, collection, model: model.model, vectors, queries } satisfies ReadContext };
}

/** How pairs are ranked: the agent's documents (ready ones, or a draft's view of them), its cut and the mode. */
export interface PairRanking {
  docs: Pick<DocumentRow, "id" | "filename">[];
  cut: number | null;
  mode: RetrievalMode;
  /** The reranker a pair's rank is taken after (absent: the mode's order), and the cut on its score (null: none). */
  rerank?: ReadRerank;
  rerankCut?: number | null;
  /** Hands each batch's pools (the mode's first `candidates`, before any reranker) to `take`: what the learned reranker trains on. */
  collect?: { candidates: number; take: (batch: Pair[], read: ReadContext, pools: PlacedChunk[][]) => void };
}

/**
 * A pair's rank after the reranker: its document's first chunk in the reordered pool; a document
 * the pool does not hold keeps its rank in the mode's order, which is past the pool anyway.
 */
function rerankedRank(pool: PlacedChunk[], ids: number[], base: number | null): number | null {
  const at = pool.findIndex((c) => ids.includes(c.document_id));
  if (at >= 0) return at + 1;
  return base === null ? null : Math.max(base, pool.length + 1);
}

/**
 * Ranks pairs as an evaluation run does, batch by batch (two batches at a time), handing each
 * batch's results to `done` as it is ranked; a draft's impact (lib/evaluation/impact.ts) ranks
 * them through the same function, so its figures are a run's.
 */
export async function rankPairs(agent: AgentView, pairs: Pair[], how: PairRanking, done: (results: PairResult[]) => void): Promise<void> {
  const { cut, mode } = how;
  // With a pool to read, the ranking is read as deep as the mode needs to order it.
  const pooled = how.rerank?.candidates ?? how.collect?.candidates;
  const window = pooled === undefined ? EVAL_WINDOW : Math.max(EVAL_WINDOW, readDepth(mode, pooled));
  const idsByFilename = new Map<string, number[]>();
  for (const d of how.docs) idsByFilename.set(d.filename, [...(idsByFilename.get(d.filename) ?? []), d.id]);
  // A pair with a metadata filter is ranked as its question was asked: among the documents the
  // filter matches. Pairs of one filter share a view and its batches.
  const groups = new Map<string, { view: AgentView; pairs: Pair[] }>();
  for (const p of pairs) {
    const key = p.filter ? JSON.stringify(p.filter) : "";
    const group = groups.get(key) ?? { view: asAskedWith(agent, p.filter), pairs: [] };
    group.pairs.push(p);
    groups.set(key, group);
  }
  const batches: { view: AgentView; chunks: number; pairs: Pair[] }[] = [];
  for (const { view, pairs: group } of groups.values()) {
    const size = view.scope ? EVAL_BATCH : evalBatchFor(view, embedder().model);
    const chunks = view.readyChunkCount();
    for (let i = 0; i < group.length; i += size) batches.push({ view, chunks, pairs: group.slice(i, i + size) });
  }
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < batches.length) {
      const { view, chunks: chunkCount, pairs: batch } = batches[next++];
      try {
        const { located, read } =
          chunkCount === 0
            ? { located: batch.map(() => ({ chunks: [] as LocatedChunk[], head: [] as RankedChunk[] })), read: null }
            : await locatePairs(view, batch, idsByFilename, window);
        let reordered: PlacedChunk[][] | null = null;
        if (read && pooled !== undefined) {
          const pools = await inMode(
            read,
            located.map((l) => l.head),
            { mode, topK: pooled, cut: null },
          );
          how.collect?.take(batch, read, pools);
          if (how.rerank) reordered = await rerankPools(read, pools, how.rerank);
        }
        done(
          batch.map((p, j) => {
            const outcome = pairOutcome(p, located[j].chunks, idsByFilename, { topDistance: located[j].head[0]?.score ?? null, cut });
            const base = mode === "vector" ? outcome.rank : modeRank(view, p, mode, located[j], idsByFilename);
            const ids = idsByFilename.get(p.expected_filename) ?? [];
            if (!reordered) return { ...outcome, rank: base };
            const pool = reordered[j];
            const rank = outcome.answerable && !outcome.missing ? rerankedRank(pool, ids, base) : base;
            const rerank_score = pool.find((c) => ids.includes(c.document_id))?.rerank?.rerank_score ?? null;
            const top_rerank_score = pool[0]?.rerank?.rerank_score ?? null;
            const beyond = outcome.beyond_cut || (outcome.answerable && belowRerankCut(rerank_score, how.rerankCut ?? null));
            return { ...outcome, rank, rerank_score, top_rerank_score, beyond_cut: beyond };
          }),
        );
      } catch (err) {
        failed = true; // the other worker stops after its batch
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(EVAL_CONCURRENCY, batches.length) }, worker));
  const rejected = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}

/** A run's figures from its pairs' results, summed in pair order (so the same results give the same figures to the last bit). */
export const summarizeResults = (results: PairResult[]) => summarize([...results].sort((a, b) => (a.pair_id ?? 0) - (b.pair_id ?? 0)));

async function execute(runId: number, agentId: number, pairs: Pair[], how: PairRanking): Promise<EvalRun> {
  try {
    await rankPairs(AgentView.of(agentId), pairs, how, (results) => saveResults(runId, results));
    finishRun(runId, summarizeResults(runResults(runId)));
  } catch (err) {
    failRun(runId, describe(err));
    throw err;
  } finally {
    keepNewestRuns(agentId);
  }
  return getRun(agentId, runId);
}

/** Retention: a finished run makes the agent's oldest finished runs past EVAL_RUNS_KEEP go, with their pairs' rows. */
function keepNewestRuns(agentId: number): void {
  try {
    pruneRuns(agentId, env().EVAL_RUNS_KEEP);
  } catch (err) {
    // Keeping the history bounded must never fail the run that just finished.
    console.error("pruning the evaluation runs failed:", err);
  }
}

/**
 * One evaluation (a run, or a comparison's chain of runs) per agent at a time: each ranks every
 * pair, so a second one while the first runs would only double the work on the same index.
 */
export function claimAgent(agentId: number, what: string): Claim {
  return claim(`evaluation:${agentId}`, what, "One evaluation runs per agent at a time; wait for it to finish, then start again.");
}

const runName = (runId: number, of?: string) => `Evaluation run ${runId} of this agent${of ? ` (${of})` : ""}`;

/**
 * Starts a run over all the agent's pairs and returns its id at once; `done`
 * settles when every pair is ranked. The settings in use are kept with the run.
 * 409 conflict while another evaluation of the agent runs.
 */
export function startEvaluation(
  agentId: number,
  k: number,
  asMode?: RetrievalMode,
  source: PairSource | null = null,
  withReranker = true,
): { runId: number; done: Promise<EvalRun> } {
  const slot = claimAgent(agentId, "An evaluation of this agent");
  try {
    const started = launch(agentId, k, asMode, source, withReranker);
    slot.rename(runName(started.runId));
    return { runId: started.runId, done: started.done.finally(() => slot.release()) };
  } catch (err) {
    slot.release();
    throw err;
  }
}

/**
 * One run per retrieval mode, each started when the one before is done so they do not compete
 * for the CPU, holding the agent's one evaluation throughout; answers the first run's id at once.
 * The chain stops at a failure, which is kept on that run's row.
 */
export function startModeComparison(
  agentId: number,
  k: number,
  source: PairSource | null = null,
): { runId: number; done: Promise<EvalRun[]> } {
  const slot = claimAgent(agentId, "A comparison of retrieval modes for this agent");
  const of = (i: number) => `${i + 1} of the ${RETRIEVAL_MODES.length} of a comparison of retrieval modes`;
  return chained(
    slot,
    RETRIEVAL_MODES.map((mode) => () => launch(agentId, k, mode, source)),
    of,
  );
}

/**
 * Two runs of the agent's pairs in its mode, one without its reranker and one with it, the
 * second started when the first is done: the Recall tab shows them side by side. 422
 * `no_reranker` when the agent ranks without one.
 */
export function startRerankComparison(
  agentId: number,
  k: number,
  source: PairSource | null = null,
): { runId: number; done: Promise<EvalRun[]> } {
  const agent = getAgent(agentId);
  if (!rerankFor(agent)) {
    throw invalid("This agent ranks without a reranker: choose one (or train the learned one) before comparing.");
  }
  const slot = claimAgent(agentId, "A comparison with and without the reranker for this agent");
  return chained(
    slot,
    [false, true].map((withReranker) => () => launch(agentId, k, undefined, source, withReranker)),
    (i) => `${i + 1} of the 2 of a comparison with and without the reranker`,
  );
}

/**
 * Runs one after the other, each started when the one before is done so they do not compete for
 * the CPU, holding the agent's one evaluation throughout; answers the first run's id at once.
 * The chain stops at a failure, which is kept on that run's row.
 */
function chained(
  slot: Claim,
  runs: (() => { runId: number; done: Promise<EvalRun> })[],
  of: (i: number) => string,
): { runId: number; done: Promise<EvalRun[]> } {
  try {
    const [first, ...rest] = runs;
    const started = first();
    slot.rename(runName(started.runId, of(0)));
    const chain = rest.reduce(
      async (previous, run, i) => {
        const done = await previous;
        const next = run();
        slot.rename(runName(next.runId, of(i + 1)));
        return [...done, await next.done];
      },
      started.done.then((run) => [run]),
    );
    return { runId: started.runId, done: chain.finally(() => slot.release()) };
  } catch (err) {
    slot.release();
    throw err;
  }
}

function launch(
  agentId: number,
  k: number,
  asMode?: RetrievalMode,
  source: PairSource | null = null,
  withReranker = true,
): { runId: number; done: Promise<EvalRun> } {
  const agent = getAgent(agentId);
  const mode = asMode ?? agent.retrieval_mode;
  // The agent's reranker, unless the run is the "without" side of a comparison.
  const rerank = withReranker ? rerankFor(agent) : undefined;
  const pairs = pairsToRun(agentId, source);
  if (pairs.length === 0) {
    throw new AppError(
      "no_pairs",
      source
        ? `This agent has no accepted labeled pairs from the source "${source}": choose another source, or accept or add some first.`
        : "This agent has no accepted labeled pairs yet: add, import or accept some before running an evaluation.",
    );
  }
  const docs = listDocuments(agentId).filter((d) => d.status === "ready");
  const chunkCount = docs.reduce((n, d) => n + d.chunk_count, 0);
  const cut = noMatchCut(agent, embedder().model);
  const runId = createRun({
    agent_id: agentId,
    k,
    n_pairs: pairs.length,
    embedding_model: embedder().model,
    query_weighting: embedder().queryWeighting ?? null,
    document_count: docs.length,
    chunk_count: chunkCount,
    chunk_settings: chunkSettings(docs),
    max_distance: cut,
    retrieval_mode: mode,
    pair_source: source,
    reranker: rerank?.reranker.name ?? "none",
    reranker_version: rerank?.reranker.version ?? null,
  });
  activeRuns().add(runId);
  const rerankCut = rerankCutFor(agent, rerank?.reranker.version);
  const done = execute(runId, agentId, pairs, { docs, cut, mode, rerank, rerankCut }).finally(() => activeRuns().delete(runId));
  return { runId, done };
}

export async function evaluate(agentId: number, k: number): Promise<EvalRun> {
  return startEvaluation(agentId, k).done;
}
