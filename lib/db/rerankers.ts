import "server-only";
import { createHash } from "node:crypto";
import type { CrossValidation, LabelIndex, LabeledQuestion, LinearModel, RerankerModel, Scores } from "../core/rerankers";
import { NO_DOCUMENT } from "../validations/pair";
import { db, now } from "./client";
import { dbState } from "./state";

export type { CrossValidation, RerankerModel, Scores };

type Row = Omit<RerankerModel, "model" | "label_index" | "cross_validation" | "wins"> & {
  model: string;
  label_index: Buffer;
  cross_validation: string;
  wins: number;
};

type StoredLabel = [group: number, stems: string[], vector: string | null];

function packLabels(index: LabelIndex): Buffer {
  const files = [...index].map(([file, labels]): [string, StoredLabel[]] => [
    file,
    labels.map((l) => [
      l.group,
      l.stems,
      l.vector ? Buffer.from(l.vector.buffer, l.vector.byteOffset, l.vector.byteLength).toString("base64") : null,
    ]),
  ]);
  return Buffer.from(JSON.stringify(files));
}

function unpackLabels(blob: Buffer): LabelIndex {
  const files = JSON.parse(blob.toString("utf8")) as [string, StoredLabel[]][];
  return new Map(
    files.map(([file, labels]) => [
      file,
      labels.map(([group, stems, vector]): LabeledQuestion => {
        if (vector === null) return { group, stems, vector: null };
        const bytes = Buffer.from(vector, "base64");
        // A copy: Float32Array needs its own aligned buffer.
        return { group, stems, vector: new Float32Array(new Uint8Array(bytes).buffer) };
      }),
    ]),
  );
}

const toModel = (r: Row): RerankerModel => ({
  ...r,
  model: JSON.parse(r.model) as LinearModel,
  label_index: unpackLabels(r.label_index),
  cross_validation: JSON.parse(r.cross_validation) as CrossValidation,
  wins: r.wins === 1,
});

export function saveModel(m: Omit<RerankerModel, "id" | "created_at">): number {
  const { lastInsertRowid } = db()
    .prepare(
      `INSERT INTO reranker_models (agent_id, mode, labels, labels_stamp, model, label_index, cross_validation, wins, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      m.agent_id,
      m.mode,
      m.labels,
      m.labels_stamp,
      JSON.stringify(m.model),
      packLabels(m.label_index),
      JSON.stringify(m.cross_validation),
      m.wins ? 1 : 0,
      now(),
    );
  return Number(lastInsertRowid);
}

/**
 * One of the agent's models. Only the agent's own: a model id of another agent is not found, so
 * no agent ever ranks with another's labels. Rows never change, so each is parsed once.
 */
export function findModel(agentId: number, id: number): RerankerModel | undefined {
  const cache = dbState().rerankerModels;
  const connection = db();
  const hit = cache.get(id);
  if (hit?.connection === connection) return hit.model.agent_id === agentId ? hit.model : undefined;
  const row = connection.prepare("SELECT * FROM reranker_models WHERE id = ? AND agent_id = ?").get(id, agentId) as Row | undefined;
  if (!row) return undefined;
  const model = toModel(row);
  if (cache.size >= 32) cache.delete(cache.keys().next().value!);
  cache.set(id, { connection, model });
  return model;
}

/** The agent's newest model, won or lost. */
export function latestModel(agentId: number): RerankerModel | undefined {
  const row = db().prepare("SELECT id FROM reranker_models WHERE agent_id = ? ORDER BY id DESC LIMIT 1").get(agentId) as
    { id: number } | undefined;
  return row && findModel(agentId, row.id);
}

/**
 * A fingerprint of what the learned reranker learns from: the agent's accepted pairs with an
 * expected document (typed in, imported, labeled from its questions, generated and accepted),
 * with their filters, and the questions attached to its chunks. Equal stamps: nothing to retrain.
 */
export function labelsStamp(agentId: number): string {
  const hash = createHash("sha256");
  const pairs = db()
    .prepare(
      "SELECT id, query, expected_filename, filter FROM pairs WHERE agent_id = ? AND status = 'accepted' AND expected_filename != ? ORDER BY id",
    )
    .all(agentId, NO_DOCUMENT) as { id: number; query: string; expected_filename: string; filter: string | null }[];
  for (const p of pairs) hash.update(`${p.id}\u0000${p.query}\u0000${p.expected_filename}\u0000${p.filter ?? ""}\u0001`);
  const attached = db()
    .prepare(
      `SELECT COUNT(*) AS n, COALESCE(MAX(d.id), 0) AS latest FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE d.agent_id = ? AND d.status = 'ready' AND c.questions IS NOT NULL`,
    )
    .get(agentId) as { n: number; latest: number };
  hash.update(`attached ${attached.n} ${attached.latest}`);
  return hash.digest("hex").slice(0, 16);
}

/** The agent's newest model that won its cross-validation: the one `learned` switches on. */
export function latestWinningModel(agentId: number): RerankerModel | undefined {
  const row = db().prepare("SELECT id FROM reranker_models WHERE agent_id = ? AND wins = 1 ORDER BY id DESC LIMIT 1").get(agentId) as
    { id: number } | undefined;
  return row && findModel(agentId, row.id);
}

/** The agents that rank with their learned reranker: the ones whose model is trained again when their labels change. */
export const agentsWithLearnedReranker = (): number[] =>
  (db().prepare("SELECT id FROM agents WHERE reranker = 'learned' ORDER BY id").all() as { id: number }[]).map((r) => r.id);
