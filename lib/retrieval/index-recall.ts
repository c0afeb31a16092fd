import "server-only";
import { env } from "../env.mjs";
import { getAgent } from "../db/agents";
import { AgentView } from "../db/agent-view";
import { readySignature } from "../db/documents";
import { insertIndexRecall, latestIndexRecall, type IndexRecallRow, type NewIndexRecall } from "../db/index-recall";
import { recentSearchTexts } from "../db/tool-calls";
import { embedder } from "../embeddings/configured";
import { AppError } from "../core/errors";
import { chunkId, collectionFor, DISTANCE_SPACE } from "../vector-store/client";
import type { RankedChunk } from "../vector-store/chunks";
import { compactServingText, exactNearest, exactVectors } from "./exact";
import { embedForAgent } from "./retrieve";
import { indexCandidates, servedCandidates, servedTable, visibleOnly } from "./read-path";
import { retrievalState, type IndexRecall } from "./state";

/**
 * The index-recall monitor: an agent's own recent searches replayed through the ranking searches
 * get and through Chroma's index alone, each compared with the exact ranking of the agent's ready
 * chunks. Recall@k is the share of the exact top k a ranking returns.
 */

export const RECALL_K = 10;
/** Distinct recent queries replayed per measurement. */
export const SAMPLED_QUERIES = 20;
/** Distances this close to the exact k-th are ties: whichever of them a ranking returns is no miss. */
const TIE = 1e-6;
/** Distances one exact scan may hold (8 bytes per chunk and query); more queries go in further scans. */
const SCAN_BYTES = 64 * 1024 * 1024;

export const NO_SEARCHES = "no searches logged yet";
export const NEVER_MEASURED = "not measured yet";
const NO_CHUNKS = "no ready documents";
const NO_COPY = "some ready documents' vectors are not yet copied for exact ranking (they are copied after start-up)";
const NOT_COSINE = "the index does not measure cosine distance, so the exact ranking cannot be compared with it";

export type { IndexRecall };

/** How an agent past the exact limit is served now (its compact table, or the index and why); null within the limit. */
const servingNow = (agentId: number) => compactServingText(agentId, embedder().model);

export function indexRecallView(agentId: number, row: IndexRecallRow | null): IndexRecall {
  const threshold = env().INDEX_RECALL_WARN;
  if (!row) {
    return {
      agent_id: agentId,
      k: RECALL_K,
      queries: 0,
      served_recall: null,
      index_recall: null,
      served_exactly: null,
      nearest_missed: null,
      index_nearest_missed: null,
      model: null,
      threshold,
      below_threshold: false,
      measured_at: null,
      reason: NEVER_MEASURED,
      serving: servingNow(agentId),
    };
  }
  return {
    agent_id: agentId,
    k: row.k,
    queries: row.queries,
    served_recall: row.served_recall,
    index_recall: row.index_recall,
    served_exactly: row.served_exactly === null ? null : row.served_exactly === 1,
    nearest_missed: row.nearest_missed,
    index_nearest_missed: row.index_nearest_missed,
    model: row.model,
    threshold,
    below_threshold: row.served_recall !== null && row.served_recall < threshold,
    measured_at: row.measured_at,
    reason: row.reason,
    serving: servingNow(agentId),
  };
}

/** The agent's latest measurement (never measured: nulls, with the reason). */
export const currentIndexRecall = (agentId: number): IndexRecall => indexRecallView(agentId, latestIndexRecall(agentId));

/**
 * Recall@k of `got` against the exact top k per query, and the queries whose exact nearest chunk
 * `got` lacks. A chunk counts when it is in the exact top k, or tied with its k-th (the index may
 * return any of the tied); any other chunk is a miss, however near it claims to be.
 */
export function recallAt(truth: RankedChunk[][], got: RankedChunk[][]): { recall: number | null; nearestMissed: number } {
  let hits = 0;
  let expected = 0;
  let nearestMissed = 0;
  truth.forEach((exact, q) => {
    if (exact.length === 0) return;
    const want = new Set(exact.map((h) => chunkId(h.document_id, h.chunk_index)));
    const edge = exact[exact.length - 1].score;
    const returned = got[q] ?? [];
    const counted = returned.filter((h) => want.has(chunkId(h.document_id, h.chunk_index)) || Math.abs(h.score - edge) <= TIE);
    hits += Math.min(exact.length, counted.length);
    expected += exact.length;
    const nearest = exact[0];
    const found = returned.some(
      (h) => (h.document_id === nearest.document_id && h.chunk_index === nearest.chunk_index) || Math.abs(h.score - nearest.score) <= TIE,
    );
    if (!found) nearestMissed++;
  });
  return { recall: expected === 0 ? null : hits / expected, nearestMissed };
}

type ExactAgent = NonNullable<Awaited<ReturnType<typeof exactVectors>>>;

/** The exact top k per query, a few queries per scan on a large agent so memory stays bounded. */
async function exactTop(agent: ExactAgent, model: string, vectors: number[][], k: number): Promise<RankedChunk[][]> {
  const perScan = Math.max(1, Math.floor(SCAN_BYTES / (8 * Math.max(1, agent.chunks))));
  const out: RankedChunk[][] = [];
  for (let i = 0; i < vectors.length; i += perScan) out.push(...(await exactNearest(agent, model, vectors.slice(i, i + perScan), k)));
  return out;
}

type Measured = Omit<NewIndexRecall, "agent_id" | "model" | "k" | "ready_signature" | "measured_at">;
const notMeasured = (reason: string): Measured => ({
  queries: 0,
  served_recall: null,
  index_recall: null,
  served_exactly: null,
  nearest_missed: null,
  index_nearest_missed: null,
  reason,
});

async function replay(agentId: number, queries: string[]): Promise<Measured> {
  if (queries.length === 0) return notMeasured(NO_SEARCHES);
  const agent = AgentView.of(agentId);
  if (agent.readyChunkCount() === 0) return notMeasured(NO_CHUNKS);
  let embedded: Awaited<ReturnType<typeof embedForAgent>>;
  try {
    embedded = await embedForAgent(agent, queries);
  } catch (err) {
    // Documents of another model: nothing is searched until they are re-embedded, which the error says how.
    if (err instanceof AppError && err.code === "embedding_model_mismatch") return notMeasured(err.message);
    throw err;
  }
  const { model, vectors } = embedded;
  const collection = await collectionFor(model);
  if (collection.metadata?.distance_space !== DISTANCE_SPACE) return notMeasured(NOT_COSINE);
  const exact = await exactVectors(agent, model.model, { anySize: true });
  if (!exact) return notMeasured(NO_COPY);
  const truth = await exactTop(exact, model.model, vectors, RECALL_K);
  // Both read as searches read them: chunks of documents that are not ready are left out.
  const target = { agent, collection, model: model.model, vectors };
  const index = await visibleOnly(target, RECALL_K, indexCandidates(target));
  const served = await visibleOnly(target, RECALL_K, servedCandidates(target));
  const top = (lists: RankedChunk[][]) => lists.map((l) => l.slice(0, RECALL_K));
  const s = recallAt(truth, top(served.kept));
  const i = recallAt(truth, top(index.kept));
  return {
    queries: queries.length,
    served_recall: s.recall,
    index_recall: i.recall,
    served_exactly: (await servedTable(target)) !== null ? 1 : 0,
    nearest_missed: s.nearestMissed,
    index_nearest_missed: i.nearestMissed,
    reason: null,
  };
}

const running = () => retrievalState().indexRecallRuns;

/**
 * Measures the agent's index recall now and keeps it: up to SAMPLED_QUERIES of its distinct recent
 * successful searches, recall@RECALL_K of the served ranking and of Chroma's index alone against
 * the exact ranking. A request while one runs for the agent joins it.
 */
export async function measureIndexRecall(agentId: number): Promise<IndexRecall> {
  getAgent(agentId); // an unknown agent is a 404 before anything runs
  let run = running().get(agentId);
  if (!run) {
    run = measure(agentId).finally(() => running().delete(agentId));
    running().set(agentId, run);
  }
  return run;
}

async function measure(agentId: number): Promise<IndexRecall> {
  const model = embedder().model;
  const queries = recentSearchTexts(agentId, SAMPLED_QUERIES);
  // A document made ready or removed mid-way skews the comparison: measured again once.
  let signature = readySignature(agentId, model);
  let measured = await replay(agentId, queries);
  if (readySignature(agentId, model) !== signature) {
    signature = readySignature(agentId, model);
    measured = await replay(agentId, queries);
  }
  const row: NewIndexRecall = {
    agent_id: agentId,
    model,
    k: RECALL_K,
    ready_signature: signature,
    measured_at: new Date().toISOString(),
    ...measured,
  };
  try {
    insertIndexRecall(row);
  } catch (err) {
    // The agent was deleted while it was measured: nothing is kept for it.
    if ((err as { code?: string }).code !== "SQLITE_CONSTRAINT_FOREIGNKEY") throw err;
  }
  return indexRecallView(agentId, { id: 0, ...row });
}
