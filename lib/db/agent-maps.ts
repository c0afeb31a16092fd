import "server-only";
import { db } from "./client";

/**
 * The agent's map as stored (lib/map/): its chunks and question groups with their 2-D points,
 * and the stamp of the content it was computed from (mapStamp). One row per agent, the newest.
 */
export interface StoredMap {
  agent_id: number;
  model: string;
  stamp: string;
  seed: number;
  /** Per chunk, in the same order: its document, its index, its point (x, y). */
  chunkDocuments: Int32Array;
  chunkIndexes: Int32Array;
  chunkPoints: Float32Array;
  /** Per question group, in the same order: its id and its point. */
  questionGroups: Int32Array;
  questionPoints: Float32Array;
  /** Ready chunks left out: their vector is not copied into SQLite yet. */
  left_out: number;
  took_ms: number;
  computed_at: string;
}

interface Row {
  agent_id: number;
  model: string;
  stamp: string;
  seed: number;
  chunk_documents: Buffer;
  chunk_indexes: Buffer;
  chunk_points: Buffer;
  question_groups: Buffer;
  question_points: Buffer;
  left_out: number;
  took_ms: number;
  computed_at: string;
}

const blob = (a: Int32Array | Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
// Copied out of the row's Buffer: its offset need not be aligned for 4-byte values.
const ints = (b: Buffer) => new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const floats = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * What the agent's map is computed from, as one value that changes with it: the ready documents
 * of `model` (how many, their ids, their chunks, and how many of those have a stored vector, as a
 * copy made after start-up adds chunks) and the question groups that have a vector of `model`.
 * A curation change makes a new version (a new id); a metadata change moves nothing.
 */
export function mapStamp(agentId: number, model: string): string {
  const r = db()
    .prepare(
      `SELECT
         (SELECT COUNT(*) FROM documents WHERE agent_id = @agent AND status = 'ready' AND embedding_model = @model) AS docs,
         (SELECT TOTAL(id) FROM documents WHERE agent_id = @agent AND status = 'ready' AND embedding_model = @model) AS ids,
         (SELECT TOTAL(chunk_count) FROM documents WHERE agent_id = @agent AND status = 'ready' AND embedding_model = @model) AS chunks,
         (SELECT TOTAL(v.count) FROM chunk_vectors v JOIN documents d ON d.id = v.document_id
            WHERE d.agent_id = @agent AND d.status = 'ready' AND d.embedding_model = @model AND v.model = @model) AS stored,
         (SELECT COUNT(*) FROM question_groups g JOIN question_keys k ON k.agent_id = g.agent_id AND k.key = g.key
            WHERE g.agent_id = @agent AND k.model = @model AND k.vector IS NOT NULL) AS groups,
         (SELECT TOTAL(g.id) FROM question_groups g JOIN question_keys k ON k.agent_id = g.agent_id AND k.key = g.key
            WHERE g.agent_id = @agent AND k.model = @model AND k.vector IS NOT NULL) AS group_ids`,
    )
    .get({ agent: agentId, model }) as Record<string, number>;
  return `${model}|${r.docs}:${r.ids}:${r.chunks}:${r.stored}|${r.groups}:${r.group_ids}`;
}

export function loadMap(agentId: number): StoredMap | null {
  const r = db().prepare("SELECT * FROM agent_maps WHERE agent_id = ?").get(agentId) as Row | undefined;
  if (!r) return null;
  return {
    agent_id: r.agent_id,
    model: r.model,
    stamp: r.stamp,
    seed: r.seed,
    chunkDocuments: ints(r.chunk_documents),
    chunkIndexes: ints(r.chunk_indexes),
    chunkPoints: floats(r.chunk_points),
    questionGroups: ints(r.question_groups),
    questionPoints: floats(r.question_points),
    left_out: r.left_out,
    took_ms: r.took_ms,
    computed_at: r.computed_at,
  };
}

/** Keeps the agent's newest map; false when the agent was deleted meanwhile. */
export function saveMap(m: StoredMap): boolean {
  try {
    db()
      .prepare(
        `INSERT OR REPLACE INTO agent_maps (agent_id, model, stamp, seed, chunk_documents, chunk_indexes, chunk_points,
           question_groups, question_points, left_out, took_ms, computed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        m.agent_id,
        m.model,
        m.stamp,
        m.seed,
        blob(m.chunkDocuments),
        blob(m.chunkIndexes),
        blob(m.chunkPoints),
        blob(m.questionGroups),
        blob(m.questionPoints),
        m.left_out,
        m.took_ms,
        m.computed_at,
      );
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_FOREIGNKEY") return false;
    throw err;
  }
}
