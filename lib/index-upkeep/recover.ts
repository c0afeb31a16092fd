import "server-only";
import { failIndexingDocuments } from "../db/documents";
import { scheduleCleanup } from "../ingest/cleanup";

/**
 * At start: documents left `indexing` by a server that stopped mid-ingest are marked failed
 * and their partial vectors queued for removal, in one transaction; then the clean-up runs
 * in the background and retries with backoff until Chroma has confirmed every removal
 * (including those queued before the stop). Nothing here needs Chroma to be up.
 */
export function recoverInterruptedIngests(): number {
  const stuck = failIndexingDocuments("Indexing was interrupted because the server stopped; upload the file again.");
  scheduleCleanup();
  return stuck.length;
}
