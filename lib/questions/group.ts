import "server-only";
import { db } from "../db/client";
import { insertGroup, insertKey, representatives, setRepresentativeVector, ungroupedKeys } from "../db/questions";
import { embedder } from "../embeddings/configured";
import { ROWS_PER_CALL, unitQuery, VectorTable } from "../retrieval/exact-kernel";
import { withKeys } from "../ingest/keyed-lock";
import { env } from "../env.mjs";
import { QUESTION_GROUP_DISTANCE } from "./group-threshold";

/** The grouping threshold in use: the environment's, or the measured default. */
export const groupDistance = () => env().QUESTION_GROUP_DISTANCE ?? QUESTION_GROUP_DISTANCE;

const EMBED_BATCH = 64;
/** New wordings scored together against the groups: the kernel scores four per pass over the table. */
const BLOCK = 16;

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

/**
 * Puts every key the log holds and no group does into a group: the nearest group's first wording
 * within `threshold`, or a new group it stands for. Each new wording is embedded once (with the
 * configured model, as is, without the agent's query weighting, so groups do not move as documents
 * change); a group's vector from another model is made again first. One grouping per agent runs
 * at a time. Returns how many keys were grouped.
 */
export async function groupQuestions(agentId: number, threshold = groupDistance()): Promise<number> {
  return withKeys([`questions:${agentId}`], async () => {
    const pending = ungroupedKeys(agentId);
    if (pending.length === 0) return 0;
    const model = embedder().model;
    const reps = representatives(agentId);
    const stale = reps.filter((r) => r.model !== model || r.vector === null);
    const remade = await embedUnit(stale.map((r) => r.text));
    const vectors = await embedUnit(pending.map((p) => p.text));
    const dimension = vectors[0].length;

    const table = new VectorTable(dimension, reps.length + pending.length);
    const groupOfRow: number[] = [];
    /** Vectors of the groups the current block started, in table order after the block's first row. */
    const rowVectors: Float32Array[] = [];
    const staleVector = new Map(stale.map((r, i) => [r.group_id, remade[i]]));
    for (const r of reps) {
      const v = staleVector.get(r.group_id) ?? asFloats(r.vector!);
      if (v.length !== dimension) continue; // a vector of another dimension cannot be compared (it is made again above)
      table.append(r.group_id, 0, 1, v);
      groupOfRow.push(r.group_id);
    }
    const scores = Array.from({ length: BLOCK }, () => new Float32Array(ROWS_PER_CALL));
    db().transaction(() => {
      for (const r of stale) setRepresentativeVector(agentId, r.key, model, staleVector.get(r.group_id)!);
    })();
    for (let b = 0; b < pending.length; b += BLOCK) {
      // A block per transaction, and the event loop gets a turn between blocks: grouping a backlog
      // of thousands of wordings takes seconds, and searches must not wait for it.
      if (b > 0) await new Promise((resolve) => setImmediate(resolve));
      db().transaction(() => {
        const block = vectors.slice(b, b + BLOCK);
        // The groups there before the block, four wordings per kernel pass...
        const rows = table.rows;
        const best = block.map(() => ({ row: -1, distance: Infinity }));
        for (let from = 0; from < rows; from += ROWS_PER_CALL) {
          const n = Math.min(ROWS_PER_CALL, rows - from);
          table.score(block, from, n, scores, 0);
          block.forEach((_, q) => {
            for (let j = 0; j < n; j++) if (scores[q][j] < best[q].distance) best[q] = { row: from + j, distance: scores[q][j] };
          });
        }
        // ...then the groups the block's own earlier wordings started.
        block.forEach((v, q) => {
          for (let row = rows; row < table.rows; row++) {
            const d = 1 - dot(v, rowVectors[row - rows]);
            if (d < best[q].distance) best[q] = { row, distance: d };
          }
          const p = pending[b + q];
          const nearest = best[q].row >= 0 && best[q].distance <= threshold ? groupOfRow[best[q].row] : null;
          if (nearest === null || !joined(agentId, p, nearest)) {
            const groupId = insertGroup(agentId, p.key, p.text, model, v);
            table.append(groupId, 0, 1, v);
            groupOfRow.push(groupId);
            rowVectors.push(v);
          }
        });
        rowVectors.length = 0;
      })();
    }
    return pending.length;
  });
}
