import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { getSweep } from "@/lib/evaluation/sweep";

/** One sweep: its progress while it runs, then every row's figures, and the progress of an apply. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/sweeps/[sweepId]">>("viewer", async ({ agent, params }) =>
  NextResponse.json(getSweep(agent.id, parseId(params.sweepId, "Sweep"))),
);
