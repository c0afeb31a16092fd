import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { applySweepRow } from "@/lib/evaluation/sweep-apply";
import { sweepApplySchema } from "@/lib/validations/sweep";

/** Re-indexes the agent's documents with one finished row's setting; answers 202 at once. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/sweeps/[sweepId]/apply">>("editor", async ({ req, agent, params }) => {
  const { row } = sweepApplySchema.parse(await readJson(req));
  const { sweep, done } = applySweepRow(agent.id, parseId(params.sweepId, "Sweep"), row);
  done.catch(() => {});
  return NextResponse.json(sweep, { status: 202 });
});
