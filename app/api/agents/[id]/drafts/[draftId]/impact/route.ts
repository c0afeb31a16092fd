import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { claim } from "@/lib/core/one-at-a-time";
import { draftImpact } from "@/lib/evaluation/impact";
import { impactQuerySchema } from "@/lib/validations/curation";

/**
 * What the draft would change: recall@k and MRR over the agent's accepted pairs before and after,
 * each pair whose rank changes, and each of the latest logged questions (`?questions=`, default
 * 1,000) whose first result or refusal changes. One impact per agent at a time (409 meanwhile):
 * each reads every pair twice.
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/drafts/[draftId]/impact">>("viewer", async ({ req, agent, params }) => {
  const draftId = parseId(params.draftId, "Draft");
  const { k, questions } = impactQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  const slot = claim(
    `impact:${agent.id}`,
    "An impact preview of this agent",
    "One impact preview runs per agent at a time; try again once it is done.",
  );
  try {
    return NextResponse.json(await draftImpact(agent.id, draftId, { k, questions }));
  } finally {
    slot.release();
  }
});
