import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { suggestFixes } from "@/lib/evaluation/fixes";
import { oneImpactAt } from "@/lib/evaluation/impact";
import { impactQuerySchema } from "@/lib/validations/curation";

/**
 * Suggested fixes for a pair the agent misses at k (`?k=3`): each candidate change staged in a
 * draft of its own, scored by that draft's impact over the agent's pairs and its latest logged
 * questions (`?questions=`, default 1,000), and discarded: nothing of them stays, so a viewer may
 * ask. One impact or set of fixes per agent at a time (409 meanwhile).
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/pairs/[pairId]/fixes">>("viewer", async ({ req, agent, params }) => {
  const pairId = parseId(params.pairId, "Labeled pair");
  const { k, questions } = impactQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  return NextResponse.json(await oneImpactAt(agent.id, () => suggestFixes(agent.id, pairId, k, { questions })));
});
