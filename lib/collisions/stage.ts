import "server-only";
import { getDocument } from "../db/documents";
import { discard, newDraft, stageDocumentRemoval, type DraftView } from "../ingest/drafts";
import type { CollisionStage } from "./schema";

/**
 * A collision is fixed through a draft: the removal of one side is staged (the same staging as a
 * DELETE with `?draft=`), so the draft's impact shows what the removal would change before it
 * is published. Without a draft, a new one is named after the collision; when the removal cannot
 * be staged, that new draft is not left behind.
 */
export async function stageCollisionFix(agentId: number, input: CollisionStage): Promise<{ draft: DraftView; created: boolean }> {
  const removed = getDocument(agentId, input.document_id);
  // Another agent's draft or document is not found (404).
  if (input.draft_id !== undefined) return { draft: await stageDocumentRemoval(agentId, input.draft_id, removed.id), created: false };
  const kept = input.collides_with === undefined ? undefined : getDocument(agentId, input.collides_with);
  const name = kept ? `Collision: keep "${kept.filename}", remove "${removed.filename}"` : `Collision: remove "${removed.filename}"`;
  const draft = newDraft(agentId, name.slice(0, 200));
  try {
    return { draft: await stageDocumentRemoval(agentId, draft.id, removed.id), created: true };
  } catch (err) {
    await discard(agentId, draft.id);
    throw err;
  }
}
