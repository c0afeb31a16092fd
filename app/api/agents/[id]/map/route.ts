import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { agentMap } from "@/lib/map/view";

/**
 * The agent's map: 2-D points of its ready chunks and of its question groups. 202 with the
 * progress while the first map is computed (in the background); 200 with the points once there is
 * one, `stale: true` while a newer one is computed after the content changed.
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/map">>("viewer", async ({ agent }) => {
  const map = agentMap(agent.id);
  return NextResponse.json(map, { status: map.status === "computing" ? 202 : 200 });
});
