import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { findCollisions, oneCollisionSearch } from "@/lib/collisions/collisions";
import { collisionQuerySchema } from "@/lib/collisions/schema";

/**
 * Pairs of the agent's served documents that collide (duplicate, conflicting or competing), the
 * strongest first, each with its evidence: `?kind=`, `?limit=` (default 50, at most 500). One
 * search at a time across the app (409 meanwhile): it reads every served chunk.
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/collisions">>("viewer", async ({ req, agent }) => {
  const query = collisionQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  return NextResponse.json(await oneCollisionSearch(agent.id, () => findCollisions(agent.id, query)));
});
