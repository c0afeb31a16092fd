import "server-only";
import { mapStamp, saveMap, type StoredMap } from "../db/agent-maps";
import { documentVectorRuns, readyVectorCoverage } from "../db/chunk-vectors";
import { representativePage } from "../db/questions";
import { embedder } from "../embeddings/configured";
import { groupQuestions } from "../questions/group";
import { sampledOrdinals } from "./projection.mjs";
import { ProjectionWorker } from "./run-worker";

/** The seed every map is computed with: the same content gives the same map. */
export const MAP_SEED = 42;
/** Sampled vectors sent to the worker per message while the principal components are fitted. */
const SAMPLE_BATCH = 256;
/** Question groups read from SQLite at a time. */
const QUESTION_PAGE = 1024;

/** How far each phase takes the whole computation (its start and end, 0 to 1): the layout's epochs take most of it. */
const PHASES: Record<string, [number, number]> = {
  sampling: [0, 0.1],
  fitting: [0.1, 0.15],
  reducing: [0.15, 0.35],
  layout: [0.35, 0.85],
  placing: [0.85, 1],
};

export interface ComputeOptions {
  seed?: number;
  /** Vectors the layout is computed from (lib/map/projection.mjs's SAMPLE unless given: the bench tries others). */
  sample?: number;
  /** Hears the phase and how far the whole computation is. */
  onProgress?: (phase: string, fraction: number) => void;
}

/** The agent's chunks with a stored vector, a run at a time, in document and chunk order. */
function* agentRuns(documents: { document_id: number }[], model: string) {
  for (const d of documents) yield* documentVectorRuns(d.document_id, model);
}

/**
 * Computes the agent's map and keeps it: its question groups are brought up to date first, then
 * the ready chunks' stored vectors (lib/db/chunk-vectors.ts) are read twice, a run at a time, and
 * sent to a worker thread (lib/map/worker.mjs): a seeded sample fits the principal components,
 * every vector is reduced to them, the sample is laid out by UMAP and the rest placed among it;
 * question groups are placed the same way, so they never move the chunks. Returns what it kept.
 */
export async function computeMap(agentId: number, o: ComputeOptions = {}): Promise<StoredMap> {
  const started = Date.now();
  const seed = o.seed ?? MAP_SEED;
  const progress = (phase: string, f: number) => {
    const [from, to] = PHASES[phase] ?? [0, 1];
    o.onProgress?.(phase, from + (to - from) * Math.min(1, Math.max(0, f)));
  };
  try {
    await groupQuestions(agentId);
  } catch (err) {
    // The map is of the chunks first: questions not grouped now (the embedder failed) are left for later.
    console.error("[kb-inspector] questions not grouped for the map:", err instanceof Error ? err.message : err);
  }
  const model = embedder().model;
  const stamp = mapStamp(agentId, model);
  const documents = readyVectorCoverage(agentId, model);
  const total = documents.reduce((s, d) => s + Math.min(d.stored, d.chunk_count), 0);
  const leftOut = documents.reduce((s, d) => s + Math.max(0, d.chunk_count - d.stored), 0);
  const first = documents.length ? agentRuns(documents, model).next().value : undefined;
  const map: StoredMap = {
    agent_id: agentId,
    model,
    stamp,
    seed,
    chunkDocuments: new Int32Array(total),
    chunkIndexes: new Int32Array(total),
    chunkPoints: new Float32Array(total * 2),
    questionGroups: new Int32Array(0),
    questionPoints: new Float32Array(0),
    left_out: leftOut,
    took_ms: 0,
    computed_at: "",
  };
  if (total > 0 && first) await project(agentId, map, documents, first.dimension, seed, o.sample, progress);
  map.took_ms = Date.now() - started;
  map.computed_at = new Date().toISOString();
  saveMap(map);
  return map;
}

async function project(
  agentId: number,
  map: StoredMap,
  documents: { document_id: number }[],
  dim: number,
  seed: number,
  sampleSize: number | undefined,
  progress: (phase: string, f: number) => void,
): Promise<void> {
  const total = map.chunkDocuments.length;
  const worker = new ProjectionWorker(progress);
  try {
    worker.start({ seed, dim, total, sample: sampleSize });
    const sample = sampledOrdinals(total, seed, sampleSize);
    const batch = new Float32Array(SAMPLE_BATCH * dim);
    let inBatch = 0;
    let next = 0;
    let ordinal = 0;
    for (const run of agentRuns(documents, map.model)) {
      for (let j = 0; j < run.count && next < sample.length; j++, ordinal++) {
        if (ordinal !== sample[next]) continue;
        batch.set(run.vectors.subarray(j * dim, (j + 1) * dim), inBatch * dim);
        next++;
        if (++inBatch === SAMPLE_BATCH) {
          worker.sample(batch, inBatch);
          inBatch = 0;
          progress("sampling", ordinal / total);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      if (next >= sample.length) break;
    }
    if (inBatch > 0) worker.sample(batch, inBatch);
    progress("fitting", 0);
    await worker.fit();
    let row = 0;
    // Documents going meanwhile give fewer rows: the map holds those read, and its stamp is already out of date.
    for (const run of agentRuns(documents, map.model)) {
      const rows = Math.min(run.count, total - row);
      if (rows <= 0) break;
      for (let j = 0; j < rows; j++) {
        map.chunkDocuments[row + j] = run.document_id;
        map.chunkIndexes[row + j] = run.first_chunk + j;
      }
      await worker.rows(run.vectors, rows);
      row += rows;
      progress("reducing", row / total);
    }
    const groups: number[] = [];
    for (let after = 0; ;) {
      const read = representativePage(agentId, map.model, after, QUESTION_PAGE);
      if (read.length === 0) break;
      after = read.at(-1)!.group_id;
      // A vector of another length cannot be placed; a model names its dimension, so only a damaged row.
      const page = read.filter((r) => r.vector.byteLength === dim * 4);
      const vectors = new Float32Array(page.length * dim);
      page.forEach((r, i) =>
        vectors.set(new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)), i * dim),
      );
      worker.questions(vectors, page.length);
      groups.push(...page.map((r) => r.group_id));
    }
    const out = await worker.layout();
    map.chunkDocuments = map.chunkDocuments.subarray(0, row);
    map.chunkIndexes = map.chunkIndexes.subarray(0, row);
    map.chunkPoints = out.chunks.subarray(0, row * 2);
    map.questionGroups = Int32Array.from(groups);
    map.questionPoints = out.questions;
  } finally {
    await worker.stop();
  }
}
