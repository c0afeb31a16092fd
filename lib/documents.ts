import "server-only";
import { db, now } from "./db";
import { notFound } from "./errors";

export type DocumentStatus = "indexing" | "ready" | "failed";

export interface DocumentRow {
  id: number;
  agent_id: number;
  filename: string;
  type: string;
  sha256: string;
  bytes: number;
  chunk_size: number;
  chunk_overlap: number;
  chunk_count: number;
  status: DocumentStatus;
  error: string | null;
  embedding_model: string;
  created_at: string;
  updated_at: string;
}

export type DocumentWithText = DocumentRow & { text: string };

const COLUMNS = `id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count,
  status, error, embedding_model, created_at, updated_at`;

export function listDocuments(agentId: number): DocumentRow[] {
  return db()
    .prepare(`SELECT ${COLUMNS} FROM documents WHERE agent_id = ? ORDER BY created_at DESC, id DESC`)
    .all(agentId) as DocumentRow[];
}

/** A document of this agent only: another agent's id is reported as not found. */
export function findDocument(agentId: number, id: number): DocumentWithText | undefined {
  return db().prepare("SELECT * FROM documents WHERE id = ? AND agent_id = ?").get(id, agentId) as DocumentWithText | undefined;
}

export function getDocument(agentId: number, id: number): DocumentWithText {
  const row = findDocument(agentId, id);
  if (!row) throw notFound(`Document ${id} of agent ${agentId}`);
  return row;
}

export function findReadyBySha(agentId: number, sha256: string): DocumentRow | undefined {
  return db()
    .prepare(`SELECT ${COLUMNS} FROM documents WHERE agent_id = ? AND sha256 = ? AND status = 'ready' LIMIT 1`)
    .get(agentId, sha256) as DocumentRow | undefined;
}

export function findByFilename(agentId: number, filename: string, exceptId: number): DocumentRow[] {
  return db()
    .prepare(`SELECT ${COLUMNS} FROM documents WHERE agent_id = ? AND filename = ? AND id != ?`)
    .all(agentId, filename, exceptId) as DocumentRow[];
}

export function insertDocument(d: {
  agent_id: number;
  filename: string;
  type: string;
  sha256: string;
  bytes: number;
  chunk_size: number;
  chunk_overlap: number;
  text: string;
  embedding_model: string;
}): number {
  const t = now();
  const { lastInsertRowid } = db()
    .prepare(
      `INSERT INTO documents (agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, status, text,
         embedding_model, created_at, updated_at)
       VALUES (@agent_id, @filename, @type, @sha256, @bytes, @chunk_size, @chunk_overlap, 'indexing', @text,
         @embedding_model, @t, @t)`,
    )
    .run({ ...d, t });
  return Number(lastInsertRowid);
}

/** False when the row is gone (its agent or the document was deleted while it was indexing). */
export function markReady(id: number, chunkCount: number): boolean {
  const { changes } = db()
    .prepare("UPDATE documents SET status = 'ready', error = NULL, chunk_count = ?, updated_at = ? WHERE id = ?")
    .run(chunkCount, now(), id);
  return changes === 1;
}

export function markFailed(id: number, reason: string): void {
  db()
    .prepare("UPDATE documents SET status = 'failed', error = ?, chunk_count = 0, updated_at = ? WHERE id = ?")
    .run(reason, now(), id);
}

export function deleteDocumentRow(agentId: number, id: number): void {
  db().prepare("DELETE FROM documents WHERE id = ? AND agent_id = ?").run(id, agentId);
}

/** Models the agent's ready documents were embedded with. */
export function embeddingModelsInUse(agentId?: number): string[] {
  const rows = (
    agentId === undefined
      ? db().prepare("SELECT DISTINCT embedding_model FROM documents WHERE status = 'ready'").all()
      : db().prepare("SELECT DISTINCT embedding_model FROM documents WHERE status = 'ready' AND agent_id = ?").all(agentId)
  ) as { embedding_model: string }[];
  return rows.map((r) => r.embedding_model);
}

export function agentChunkCount(agentId: number): number {
  const row = db()
    .prepare("SELECT COALESCE(SUM(chunk_count), 0) AS n FROM documents WHERE agent_id = ? AND status = 'ready'")
    .get(agentId) as { n: number };
  return row.n;
}
