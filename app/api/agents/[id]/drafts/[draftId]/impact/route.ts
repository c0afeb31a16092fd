import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { draftImpact, oneImpactAt } from "@/lib/evaluation/impact";
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
  return NextResponse.json(await oneImpactAt(agent.id, () => draftImpact(agent.id, draftId, { k, questions })));
});
