import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { startSweep } from "@/lib/evaluation/sweep";
import { sweepRequestSchema } from "@/lib/validations/sweep";

/** Starts a chunk-settings sweep; answers 202 with it at once, to be followed on /sweeps/{sweepId}. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/sweeps">>("editor", async ({ req, agent }) => {
  const { settings, k } = sweepRequestSchema.parse(await readJson(req));
  const { sweep, done } = startSweep(agent.id, settings, k);
  done.catch(() => {}); // a failure is kept on the sweep, where the caller reads it
  return NextResponse.json(sweep, { status: 202, headers: { location: `/api/agents/${agent.id}/sweeps/${sweep.id}` } });
});
