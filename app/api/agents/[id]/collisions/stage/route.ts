import { NextResponse } from "next/server";
import { actorOf, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { stageCollisionFix } from "@/lib/collisions/stage";
import { collisionStageSchema } from "@/lib/collisions/schema";

/**
 * `{"action": "remove" | "switch_off", "document_id", "collides_with"?, "draft_id"?}`: stages the
 * removal of one side of a collision, or switching it off, in a draft (a new one, named after the collision, without `draft_id`);
 * nothing served changes until the draft is published. Answers the draft (201 when new) and
 * where its impact is read.
 */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/collisions/stage">>("editor", async ({ req, agent }) => {
  const input = collisionStageSchema.parse(await readJson(req));
  const { draft, created } = await stageCollisionFix(agent.id, input, actorOf(req));
  return NextResponse.json({ draft, impact: `/api/agents/${agent.id}/drafts/${draft.id}/impact` }, { status: created ? 201 : 200 });
});
