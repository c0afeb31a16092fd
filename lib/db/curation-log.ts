import "server-only";
import { db, now } from "./client";

/** One curation change, as the log keeps it. */
export interface CurationLogEntry {
  id: number;
  filename: string;
  /** The version the change wrote. */
  document_id: number;
  /** The version it replaced. */
  replaced_id: number;
  chunk_id: number | null;
  action: string;
  detail: string | null;
  actor: string | null;
  at: string;
}

/** Notes a curation change of an agent's document (every change is kept, whoever made it). */
export function logCuration(agentId: number, entry: Omit<CurationLogEntry, "id" | "at">): void {
  db()
    .prepare(
      `INSERT INTO curation_log (agent_id, filename, document_id, replaced_id, chunk_id, action, detail, actor, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(agentId, entry.filename, entry.document_id, entry.replaced_id, entry.chunk_id, entry.action, entry.detail, entry.actor, now());
}

/** The newest curation changes of an agent's documents under one name, newest first. */
export function curationLog(agentId: number, filename: string, limit = 50): CurationLogEntry[] {
  return db()
    .prepare(
      `SELECT id, filename, document_id, replaced_id, chunk_id, action, detail, actor, at FROM curation_log
       WHERE agent_id = ? AND filename = ? ORDER BY id DESC LIMIT ?`,
    )
    .all(agentId, filename, limit) as CurationLogEntry[];
}

/** The name of a version a curation change replaced, so a request for it can name the version now served; undefined when none did. */
export function filenameOfReplaced(agentId: number, documentId: number): string | undefined {
  const row = db().prepare("SELECT filename FROM curation_log WHERE agent_id = ? AND replaced_id = ? LIMIT 1").get(agentId, documentId) as
    { filename: string } | undefined;
  return row?.filename;
}
