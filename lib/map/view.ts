import "server-only";
import { describeFailure } from "../core/errors";
import type { Metadata } from "../core/metadata";
import { loadMap, mapStamp } from "../db/agent-maps";
import { listDocuments } from "../db/documents";
import { questionStats, type QuestionStatsRow, type QuestionStatus } from "../db/questions";
import { embedder } from "../embeddings/configured";
import { retrievedPerChunk } from "../db/coverage";
import { computeMap } from "./compute";
import { mapState, type MapJob } from "./state";

/** How long a failed computation of unchanged content waits before a request tries it again. */
export const FAILURE_RETRY_MS = 60_000;
/** Decimals a point's coordinates are given with: far finer than a pixel of any screen. */
const DECIMALS = 1e4;

export interface MapProgress {
  phase: string;
  /** How far the whole computation is, 0 to 1. */
  fraction: number;
}
export interface MapDocument {
  id: number;
  filename: string;
  metadata: Metadata;
}
export interface MapChunk {
  document_id: number;
  chunk_index: number;
  filename: string;
  x: number;
  y: number;
  /** The agent's calls of the last RETRIEVED_DAYS days that returned it (coverage: lib/db/coverage.ts). */
  retrieved: number;
}

/** The window a chunk's `retrieved` counts: the Documents tab's default. */
export const RETRIEVED_DAYS = 30;
export interface MapQuestion {
  /** The question group's id. */
  id: number;
  /** The wording that stands for the group. */
  text: string;
  x: number;
  y: number;
  status: QuestionStatus;
  asked: number;
  /** Calls the no-match cut (or ask) refused. */
  refused: number;
  /** A gap: marked so, or open and refused every time it was asked (as the gap list counts it). */
  gap: boolean;
}

export type MapAnswer =
  | { status: "computing"; progress: MapProgress }
  | { status: "failed"; message: string }
  | {
      status: "ready";
      /** The content changed since it was computed: a new map is being computed (progress), or failed (failure). */
      stale: boolean;
      progress: MapProgress | null;
      failure: string | null;
      model: string;
      seed: number;
      computed_at: string;
      took_ms: number;
      /** Ready chunks without a stored vector yet (copied after start-up), not on the map. */
      left_out: number;
      documents: MapDocument[];
      chunks: MapChunk[];
      /** The window each chunk's `retrieved` counts, in days. */
      retrieved_days: number;
      questions: MapQuestion[];
    };

const round = (v: number) => Math.round(v * DECIMALS) / DECIMALS;

/** Starts computing the agent's map unless it is already, or failed on this content a moment ago. */
function ensureJob(agentId: number, stamp: string): MapJob | undefined {
  const { jobs, failures } = mapState();
  const running = jobs.get(agentId);
  if (running) return running;
  const failed = failures.get(agentId);
  if (failed && failed.stamp === stamp && Date.now() - failed.at < FAILURE_RETRY_MS) return undefined;
  const job: MapJob = { phase: "starting", fraction: 0, done: Promise.resolve() };
  job.done = computeMap(agentId, { onProgress: (phase, fraction) => Object.assign(job, { phase, fraction }) })
    .then(() => void failures.delete(agentId))
    .catch((err: unknown) => {
      console.error(`[kb-inspector] the map of agent ${agentId} was not computed:`, err);
      failures.set(agentId, { stamp, message: describeFailure(err, "map computation"), at: Date.now() });
    })
    .finally(() => jobs.delete(agentId));
  jobs.set(agentId, job);
  return job;
}

/** The computation of the agent's map under way, if any (tests and the bench wait for it). */
export const mapComputation = (agentId: number): Promise<void> | undefined => mapState().jobs.get(agentId)?.done;

const progressOf = (job: MapJob | undefined): MapProgress | null =>
  job ? { phase: job.phase, fraction: Math.round(job.fraction * 100) / 100 } : null;

/**
 * The agent's map as GET /api/agents/{id}/map answers it. A map computed from the content as it
 * is now is served as it is; otherwise one is computed in the background and, meanwhile, the
 * last one is served marked stale (without its chunks of documents no longer ready), or, when
 * there is none, the progress. Never computed in the request.
 */
export function agentMap(agentId: number): MapAnswer {
  const model = embedder().model;
  const stamp = mapStamp(agentId, model);
  const stored = loadMap(agentId);
  const current = stored !== null && stored.stamp === stamp;
  const job = current ? undefined : ensureJob(agentId, stamp);
  const failure = current ? null : (mapState().failures.get(agentId)?.message ?? null);
  if (!stored) {
    if (!job && failure) return { status: "failed", message: failure };
    return { status: "computing", progress: progressOf(job) ?? { phase: "starting", fraction: 0 } };
  }
  const documents = listDocuments(agentId)
    .filter((d) => d.status === "ready" && d.embedding_model === stored.model)
    .map((d) => ({ id: d.id, filename: d.filename, metadata: d.metadata }))
    .sort((a, b) => a.id - b.id);
  const names = new Map(documents.map((d) => [d.id, d.filename]));
  const chunks: MapChunk[] = [];
  const retrieved = retrievedPerChunk(agentId, new Date(Date.now() - RETRIEVED_DAYS * 86_400_000).toISOString());
  stored.chunkDocuments.forEach((documentId, i) => {
    const filename = names.get(documentId);
    if (filename === undefined) return;
    const [x, y] = [stored.chunkPoints[2 * i], stored.chunkPoints[2 * i + 1]];
    const chunkIndex = stored.chunkIndexes[i];
    const times = retrieved.get(`${documentId}:${chunkIndex}`) ?? 0;
    chunks.push({ document_id: documentId, chunk_index: chunkIndex, filename, x: round(x), y: round(y), retrieved: times });
  });
  const stats = new Map((questionStats(agentId, { limit: -1 }) as (QuestionStatsRow & { answered: number })[]).map((r) => [r.id, r]));
  const questions: MapQuestion[] = [];
  stored.questionGroups.forEach((groupId, i) => {
    const q = stats.get(groupId);
    if (!q) return; // its calls were pruned: the question is gone
    const gap = q.status === "gap" || (q.status === "open" && q.refused > 0 && q.answered === 0);
    const [x, y] = [stored.questionPoints[2 * i], stored.questionPoints[2 * i + 1]];
    questions.push({ id: groupId, text: q.text, x: round(x), y: round(y), status: q.status, asked: q.asked, refused: q.refused, gap });
  });
  return {
    status: "ready",
    stale: !current,
    progress: progressOf(job),
    failure,
    model: stored.model,
    seed: stored.seed,
    computed_at: stored.computed_at,
    took_ms: stored.took_ms,
    left_out: stored.left_out,
    documents,
    chunks,
    retrieved_days: RETRIEVED_DAYS,
    questions,
  };
}
