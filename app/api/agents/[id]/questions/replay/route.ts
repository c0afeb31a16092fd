import { NextResponse } from "next/server";
import { readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { replayQuestions } from "@/lib/questions/replay";
import { replaySchema } from "@/lib/validations/questions";

/**
 * Re-runs logged questions now and compares: `{"since": "...", "limit": 100}` or `{"groups": [ids]}`;
 * `?draft=`: as the agent would answer them once that draft is published.
 */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/questions/replay">>("viewer", async ({ req, agent }) => {
  const draftId = requestDraft(req, agent.id);
  const input = replaySchema.parse(await readJson(req));
  return NextResponse.json(await replayQuestions(agent.id, { since: input.since, groupIds: input.groups, limit: input.limit, draftId }));
});
