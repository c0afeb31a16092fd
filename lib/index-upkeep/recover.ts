import "server-only";
import { failIndexingDocuments } from "../db/documents";
import { scheduleCleanup } from "../ingest/cleanup";
import { sweepOrphansSoon } from "./orphans";

/**
 * At start: documents left `indexing` by a server that stopped mid-ingest are marked failed
 * and their partial vectors queued for removal, in one transaction; then the clean-up runs
 * in the background and retries with backoff until Chroma has confirmed every removal
 * (including those queued before the stop), and the orphan sweep looks for vectors that the
 * stopped server's last writes left behind a removal. Nothing here needs Chroma to be up.
 */
export function recoverInterruptedIngests(): number {
  const stuck = failIndexingDocuments("Indexing was interrupted because the server stopped; upload the file again.");
  scheduleCleanup();
  sweepOrphansSoon();
  return stuck.length;
}
