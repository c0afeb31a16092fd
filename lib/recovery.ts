import "server-only";
import { ownCollections } from "./chroma";
import { db, now } from "./db";
import { deleteDocumentVectors } from "./vectors";

/**
 * Documents left `indexing` by a server that stopped mid-ingest: mark them failed
 * and remove whatever vectors they had written, so no search returns a partial document.
 */
export async function recoverInterruptedIngests(): Promise<number> {
  const stuck = db().prepare("SELECT id, agent_id FROM documents WHERE status = 'indexing'").all() as { id: number; agent_id: number }[];
  if (stuck.length === 0) return 0;
  const collections = await ownCollections();
  for (const doc of stuck) {
    for (const c of collections) await deleteDocumentVectors(c, doc.agent_id, doc.id);
    db()
      .prepare("UPDATE documents SET status = 'failed', chunk_count = 0, error = ?, updated_at = ? WHERE id = ? AND status = 'indexing'")
      .run("Indexing was interrupted because the server stopped; upload the file again.", now(), doc.id);
  }
  return stuck.length;
}
