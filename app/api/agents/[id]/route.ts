import { NextResponse } from "next/server";
import { updateAgent } from "@/lib/db/agents";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { removeAgent } from "@/lib/ingest/remove";
import { agentUpdateSchema } from "@/lib/validations/agent";

export const GET = withAgent<RouteCtx<"/api/agents/[id]">>(async ({ agent }) => NextResponse.json(agent));

export const PATCH = withAgent<RouteCtx<"/api/agents/[id]">>(async ({ req, agent }) => {
  const input = agentUpdateSchema.parse(await readJson(req));
  return NextResponse.json(updateAgent(agent.id, input));
});

export const DELETE = withAgent<RouteCtx<"/api/agents/[id]">>(async ({ agent }) => {
  await removeAgent(agent.id);
  return new NextResponse(null, { status: 204 });
});
