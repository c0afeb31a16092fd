import "server-only";
import { getDocument } from "../db/documents";
import { switchDocument } from "../ingest/curate";
import { discard, draftView, newDraft, stageDocumentRemoval, type DraftView } from "../ingest/drafts";
import type { CollisionStage } from "./schema";

/**
 * A collision is fixed through a draft: the removal of one side (the same staging as a DELETE
 * with `?draft=`) or switching it off (as a PATCH `{"enabled": false}` with `?draft=`: kept, and
 * never retrieved while off) is staged, so the draft's impact shows what it would change before
 * it is published. Without a draft, a new one is named after the collision; when the change
 * cannot be staged, that new draft is not left behind.
 */
export async function stageCollisionFix(
  agentId: number,
  input: CollisionStage,
  actor: string | null = null,
): Promise<{ draft: DraftView; created: boolean }> {
  const side = getDocument(agentId, input.document_id);
  const stage = async (draftId: number) => {
    if (input.action === "remove") return stageDocumentRemoval(agentId, draftId, side.id);
    await switchDocument(agentId, side.id, false, actor, { draftId });
    return draftView(agentId, draftId);
  };
  // Another agent's draft or document is not found (404).
  if (input.draft_id !== undefined) return { draft: await stage(input.draft_id), created: false };
  const kept = input.collides_with === undefined ? undefined : getDocument(agentId, input.collides_with);
  const what = input.action === "remove" ? "remove" : "switch off";
  const name = kept ? `Collision: keep "${kept.filename}", ${what} "${side.filename}"` : `Collision: ${what} "${side.filename}"`;
  const draft = newDraft(agentId, name.slice(0, 200));
  try {
    return { draft: await stage(draft.id), created: true };
  } catch (err) {
    await discard(agentId, draft.id);
    throw err;
  }
}
