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

const asFloats = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

async function embedUnit(texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    for (const v of await embedder().embed(texts.slice(i, i + EMBED_BATCH))) out.push(unitQuery(v));
  }
  return out;
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
    const staleVector = new Map(stale.map((r, i) => [r.group_id, remade[i]]));
    for (const r of reps) {
      const v = staleVector.get(r.group_id) ?? asFloats(r.vector!);
      if (v.length !== dimension) continue; // a vector of another dimension cannot be compared (it is made again above)
      table.append(r.group_id, 0, 1, v);
      groupOfRow.push(r.group_id);
    }
    const scores = [new Float32Array(ROWS_PER_CALL)];
    db().transaction(() => {
      for (const r of stale) setRepresentativeVector(agentId, r.key, model, staleVector.get(r.group_id)!);
      pending.forEach((p, i) => {
        let best = -1;
        let bestDistance = Infinity;
        for (let from = 0; from < table.rows; from += ROWS_PER_CALL) {
          const n = Math.min(ROWS_PER_CALL, table.rows - from);
          table.score([vectors[i]], from, n, scores, 0);
          for (let j = 0; j < n; j++) {
            if (scores[0][j] < bestDistance) {
              bestDistance = scores[0][j];
              best = from + j;
            }
          }
        }
        if (best >= 0 && bestDistance <= threshold) {
          insertKey(agentId, p.key, p.text, groupOfRow[best]);
        } else {
          const groupId = insertGroup(agentId, p.key, p.text, model, vectors[i]);
          table.append(groupId, 0, 1, vectors[i]);
          groupOfRow.push(groupId);
        }
      });
    })();
    return pending.length;
  });
}
