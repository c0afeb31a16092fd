import "server-only";
import { db } from "../db/client";
import { insertGroup, insertKey, representativePage, setRepresentativeVector, staleRepresentatives, ungroupedKeys } from "../db/questions";
import { embedder } from "../embeddings/configured";
import { unitQuery, VectorTable } from "../retrieval/exact-kernel";
import { withKeys } from "../ingest/keyed-lock";
import { env } from "../env.mjs";
import { QUESTION_GROUP_DISTANCE } from "./group-threshold";

/** The grouping threshold in use: the environment's, or the measured default. */
export const groupDistance = () => env().QUESTION_GROUP_DISTANCE ?? QUESTION_GROUP_DISTANCE;

const EMBED_BATCH = 64;
/** Groups read from SQLite and scored at a time: memory stays flat however many groups the agent has. */
export const GROUP_PAGE = 1024;
/** New wordings grouped per round: each round reads every group once, a page at a time. */
const ROUND = 512;
/** New wordings written per transaction; the event loop gets a turn between blocks. */
const BLOCK = 16;

const turn = () => new Promise((resolve) => setImmediate(resolve));

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

const asFloats = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

async function embedUnit(texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    for (const v of await embedder().embed(texts.slice(i, i + EMBED_BATCH))) out.push(unitQuery(v));
  }
  return out;
}

/** Adds the wording to the group; false when the group went meanwhile (its calls were pruned while this grouping ran). */
function joined(agentId: number, p: { key: string; text: string }, groupId: number): boolean {
  try {
    insertKey(agentId, p.key, p.text, groupId);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_FOREIGNKEY") return false;
    throw err;
  }
}

/** Groups whose vector is of another model (or none) get one of the configured model, a batch at a time. */
async function remakeStale(agentId: number, model: string): Promise<void> {
  for (let after = 0; ;) {
    const stale = staleRepresentatives(agentId, model, after, EMBED_BATCH);
    if (stale.length === 0) return;
    after = stale.at(-1)!.group_id;
    const vectors = await embedUnit(stale.map((r) => r.text));
    db().transaction(() => stale.forEach((r, i) => setRepresentativeVector(agentId, r.key, model, vectors[i])))();
  }
}

/** For each vector, the nearest group of the agent now and its distance, reading the groups a page at a time. */
async function nearestGroups(agentId: number, model: string, vectors: Float32Array[]): Promise<{ group: number; distance: number }[]> {
  const dimension = vectors[0].length;
  const best = vectors.map(() => ({ group: -1, distance: Infinity }));
  const table = new VectorTable(dimension, GROUP_PAGE);
  const scores = vectors.map(() => new Float32Array(GROUP_PAGE));
  for (let after = 0; ; await turn()) {
    const page = representativePage(agentId, model, after, GROUP_PAGE);
    if (page.length === 0) return best;
    after = page.at(-1)!.group_id;
    table.clear();
    const groupOfRow: number[] = [];
    for (const r of page) {
      const v = asFloats(r.vector);
      if (v.length !== dimension) continue; // cannot be compared; a model names its dimension, so only a damaged row
      table.append(r.group_id, 0, 1, v);
      groupOfRow.push(r.group_id);
    }
    if (table.rows === 0) continue;
    table.score(vectors, 0, table.rows, scores, 0);
    best.forEach((b, q) => {
      for (let j = 0; j < table.rows; j++)
        if (scores[q][j] < b.distance) Object.assign(b, { group: groupOfRow[j], distance: scores[q][j] });
    });
  }
}

/** Groups one round of new wordings, in order: each joins the nearest group there before it within `threshold`, or starts one. */
async function groupRound(agentId: number, model: string, pending: { key: string; text: string }[], threshold: number): Promise<void> {
  const vectors = await embedUnit(pending.map((p) => p.text));
  const best = await nearestGroups(agentId, model, vectors);
  /** The groups this round's earlier wordings started, which the pages above did not hold. */
  const started: { group: number; vector: Float32Array }[] = [];
  for (let b = 0; b < pending.length; b += BLOCK) {
    // A block per transaction, and the event loop gets a turn between blocks: grouping a backlog
    // of thousands of wordings takes seconds, and searches must not wait for it.
    if (b > 0) await turn();
    db().transaction(() => {
      for (let q = b; q < Math.min(b + BLOCK, pending.length); q++) {
        const v = vectors[q];
        for (const s of started) {
          const d = 1 - dot(v, s.vector);
          if (d < best[q].distance) best[q] = { group: s.group, distance: d };
        }
        const p = pending[q];
        const nearest = best[q].group >= 0 && best[q].distance <= threshold ? best[q].group : null;
        if (nearest === null || !joined(agentId, p, nearest))
          started.push({ group: insertGroup(agentId, p.key, p.text, model, v), vector: v });
      }
    })();
  }
}

/**
 * Puts every key the log holds and no group does into a group: the nearest group's first wording
 * within `threshold`, or a new group it stands for. Each new wording is embedded once (with the
 * configured model, as is, without the agent's query weighting, so groups do not move as documents
 * change); a group's vector from another model is made again first. Groups are read from SQLite a
 * page at a time and new wordings taken a round at a time, so memory does not grow with either.
 * One grouping per agent runs at a time. Returns how many keys were grouped.
 */
export async function groupQuestions(agentId: number, threshold = groupDistance()): Promise<number> {
  return withKeys([`questions:${agentId}`], async () => {
    const model = embedder().model;
    let grouped = 0;
    for (let after = 0; ;) {
      const pending = ungroupedKeys(agentId, after, ROUND);
      if (pending.length === 0) return grouped;
      after = pending.at(-1)!.first;
      if (grouped === 0) await remakeStale(agentId, model);
      await groupRound(agentId, model, pending, threshold);
      grouped += pending.length;
    }
  });
}
