import "server-only";
import { db, now } from "../db/client";
import { enqueueCleanup, scheduleCleanup } from "./cleanup";

/**
 * At start: documents left `indexing` by a server that stopped mid-ingest are marked failed
 * and their partial vectors queued for removal, in one transaction; then the clean-up runs
 * in the background and retries with backoff until Chroma has confirmed every removal
 * (including those queued before the stop). Nothing here needs Chroma to be up.
 */
export function recoverInterruptedIngests(): number {
  const stuck = db()
    .transaction(() => {
      const rows = db().prepare("SELECT id, agent_id, chunk_count FROM documents WHERE status = 'indexing'").all() as {
        id: number;
        agent_id: number;
        chunk_count: number;
      }[];
      for (const doc of rows) {
        db()
          .prepare("UPDATE documents SET status = 'failed', chunk_count = 0, error = ?, updated_at = ? WHERE id = ?")
          .run("Indexing was interrupted because the server stopped; upload the file again.", now(), doc.id);
        enqueueCleanup(doc.agent_id, doc.id, doc.chunk_count, "ingest interrupted");
      }
      return rows;
    })();
  scheduleCleanup();
  return stuck.length;
}
