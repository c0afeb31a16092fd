import "server-only";
import { pagesOf } from "../core/pages";
import { db } from "./client";

/**
 * Uploaded PDFs' own bytes, kept for the document page's viewer (migration 034): once per agent and
 * content, shared by every version of a document with that content, and dropped by a trigger with
 * the agent's last document of that content.
 */

/** Keeps a file's bytes (written in the transaction that inserts its document); a no-op when they are kept already. */
export function keepDocumentFile(agentId: number, sha256: string, type: string, bytes: Uint8Array): void {
  db()
    .prepare("INSERT OR IGNORE INTO document_files (agent_id, sha256, type, bytes) VALUES (?, ?, ?, ?)")
    .run(agentId, sha256, type, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** Whether the agent keeps the file of this content. */
export const hasDocumentFile = (agentId: number, sha256: string): boolean =>
  db().prepare("SELECT 1 FROM document_files WHERE agent_id = ? AND sha256 = ?").get(agentId, sha256) !== undefined;

/** The kept file of one of the agent's documents (any version); undefined when the document is not the agent's or its file is not kept. */
export function documentFile(agentId: number, documentId: number): { type: string; bytes: Buffer } | undefined {
  return db()
    .prepare(
      `SELECT f.type, f.bytes FROM documents d JOIN document_files f ON f.agent_id = d.agent_id AND f.sha256 = d.sha256
       WHERE d.id = ? AND d.agent_id = ?`,
    )
    .get(documentId, agentId) as { type: string; bytes: Buffer } | undefined;
}

/**
 * Gives a document stored without pages, and its chunks, the pages of its file read again (the
 * same file uploaded again): only when the text read again is its text, so every chunk's offsets
 * hold. True when the pages were written.
 */
export function completeDocumentPages(documentId: number, text: string, starts: number[]): boolean {
  return db().transaction(() => {
    const row = db().prepare("SELECT text, page_starts FROM documents WHERE id = ?").get(documentId) as
      { text: string; page_starts: string | null } | undefined;
    if (!row || row.page_starts !== null || row.text !== text) return false;
    db().prepare("UPDATE documents SET page_starts = ? WHERE id = ?").run(JSON.stringify(starts), documentId);
    for (const table of ["chunks", "chunks_off"]) {
      const key = table === "chunks" ? "chunk_index" : "position";
      const rows = db().prepare(`SELECT ${key} AS k, start, end FROM ${table} WHERE document_id = ?`).all(documentId) as {
        k: number;
        start: number;
        end: number;
      }[];
      const update = db().prepare(`UPDATE ${table} SET page_first = ?, page_last = ? WHERE document_id = ? AND ${key} = ?`);
      for (const r of rows) {
        const pages = pagesOf(starts, r.start, r.end);
        update.run(pages?.first ?? null, pages?.last ?? null, documentId, r.k);
      }
    }
    return true;
  })();
}
