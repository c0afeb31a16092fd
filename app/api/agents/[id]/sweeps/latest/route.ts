import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { latestSweep } from "@/lib/evaluation/sweep";

/** The agent's most recent sweep, running or finished, so a reopened page can show it; null before the first. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/sweeps/latest">>("viewer", async ({ agent }) =>
  NextResponse.json(latestSweep(agent.id)),
);
