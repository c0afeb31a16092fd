import { z } from "zod";

export const COLLISION_KINDS = ["duplicate", "conflicting", "competing"] as const;
export type CollisionKind = (typeof COLLISION_KINDS)[number];

/** GET /api/agents/{id}/collisions: `kind` one kind, `limit` how many (default 50, at most 500). */
export const collisionQuerySchema = z.object({
  kind: z.enum(COLLISION_KINDS, { error: `kind must be one of: ${COLLISION_KINDS.join(", ")}.` }).optional(),
  limit: z.coerce
    .number({ error: "limit must be a number of collisions." })
    .int("limit must be a whole number.")
    .min(1, "limit is at least 1.")
    .max(500, "limit is at most 500.")
    .default(50),
});

/** What a collision's fix stages for one side: its removal, or switching it off (kept, never retrieved while off). */
export const COLLISION_ACTIONS = ["remove", "switch_off"] as const;
export type CollisionAction = (typeof COLLISION_ACTIONS)[number];

/** POST /api/agents/{id}/collisions/stage: the removal of one side or switching it off, in a draft (a new one without `draft_id`). */
export const collisionStageSchema = z.strictObject({
  action: z.enum(COLLISION_ACTIONS, { error: 'action must be "remove" or "switch_off".' }),
  document_id: z.number({ error: "document_id must be the id of the document to remove or switch off." }).int().positive(),
  /** The other side, to name a new draft after the collision. */
  collides_with: z.number({ error: "collides_with must be a document id." }).int().positive().optional(),
  draft_id: z.number({ error: "draft_id must be a draft's id." }).int().positive().optional(),
});
export type CollisionStage = z.infer<typeof collisionStageSchema>;
