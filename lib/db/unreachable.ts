import "server-only";
import { db, now } from "./client";

/**
 * Chunks that Chroma stores but its index could not return even after they were written again
 * (found by the check after a Chroma crash, lib/index-upkeep/after-restart.ts). Every vector query of
 * their agent ranks them by their exact distance besides what the index returns
 * (lib/retrieval/index-candidates.ts), so a search finds them all the same. Rows go with their document.
 */

export interface ChunkKey {
  document_id: number;
  chunk_index: number;
}

export function markUnreachable(agentId: number, keys: ChunkKey[]): void {
  const insert = db().prepare(
    `INSERT INTO unreachable_chunks (document_id, chunk_index, agent_id, found_at)
     SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ? AND agent_id = ?)
     ON CONFLICT (document_id, chunk_index) DO NOTHING`,
  );
  const t = now();
  db().transaction(() => {
    for (const k of keys) insert.run(k.document_id, k.chunk_index, agentId, t, k.document_id, agentId);
  })();
}

/** Forgets chunks a query by their own vector returns again. */
export function clearUnreachable(keys: ChunkKey[]): void {
  if (keys.length === 0) return;
  const remove = db().prepare("DELETE FROM unreachable_chunks WHERE document_id = ? AND chunk_index = ?");
  db().transaction(() => {
    for (const k of keys) remove.run(k.document_id, k.chunk_index);
  })();
}

export function unreachableOf(agentId: number): ChunkKey[] {
  return db()
    .prepare("SELECT document_id, chunk_index FROM unreachable_chunks WHERE agent_id = ? ORDER BY document_id, chunk_index")
    .all(agentId) as ChunkKey[];
}

/** How many chunks are kept as unreachable, all agents (health). */
export function unreachableCount(): number {
  return (db().prepare("SELECT COUNT(*) AS n FROM unreachable_chunks").get() as { n: number }).n;
}
