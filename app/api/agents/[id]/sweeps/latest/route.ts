import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { latestSweep } from "@/lib/evaluation/sweep";
import { notFound } from "@/lib/http/errors";

/** The agent's most recent sweep, running or finished, so a reopened page can show it. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/sweeps/latest">>(async ({ agent }) => {
  const sweep = latestSweep(agent.id);
  if (!sweep) throw notFound(`A sweep of agent ${agent.id}`);
  return NextResponse.json(sweep);
});
