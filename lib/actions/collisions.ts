"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { stageCollisionFix } from "@/lib/collisions/stage";
import { collisionStageSchema } from "@/lib/collisions/schema";
import { formText, toFormState, type FormState } from "./form-state";

export interface CollisionFixState extends Pick<FormState, "ok" | "message"> {
  /** The draft the removal was staged in: its page previews the impact and publishes it. */
  draftId?: number;
}

/**
 * "Remove … in a draft" and "Switch off … in a draft" on a collision: stages the removal of the
 * clicked side (`document_id`), or switching it off (`action=switch_off`), in a new draft named
 * after the pair; nothing served changes until that draft is published.
 */
export async function removeInDraftAction(
  agentId: number,
  pair: [number, number],
  _prev: CollisionFixState,
  form: FormData,
): Promise<CollisionFixState> {
  await requireRole("editor");
  const [action, id] = formText(form, "side").split(":");
  const documentId = Number(id);
  const parsed = collisionStageSchema.safeParse({
    action,
    document_id: documentId,
    collides_with: pair.find((id) => id !== documentId),
  });
  if (!parsed.success) return { ok: false, message: toFormState(parsed.error, { message: "Nothing was staged." }).message };
  let result: Awaited<ReturnType<typeof stageCollisionFix>>;
  try {
    result = await stageCollisionFix(agentId, parsed.data, "browser");
  } catch (err) {
    return { ok: false, message: toFormState(err).message };
  }
  revalidatePath(`/agents/${agentId}/drafts`);
  const side = [...result.draft.removals, ...result.draft.documents].map((d) => d.filename).join(", ");
  const what = parsed.data.action === "remove" ? "The removal of" : "Switching off";
  return {
    ok: true,
    draftId: result.draft.id,
    message: `${what} ${side} is staged in draft ${result.draft.id}; the agent serves it as it is until the draft is published.`,
  };
}
