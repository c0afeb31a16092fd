import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { resolveRemovals } from "@/lib/sources/removals";
import { removalsSchema } from "@/lib/validations/source";

/** `{"action": "remove" | "keep", "urls": [...] | "all"}` on the source's proposed removals. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/sources/[sourceId]/removals">>("editor", async ({ req, agent, params }) => {
  const input = removalsSchema.parse(await readJson(req));
  return NextResponse.json(await resolveRemovals(agent.id, parseId(params.sourceId, "Source"), input.action, input.urls));
});
