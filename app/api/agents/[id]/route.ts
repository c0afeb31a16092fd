import { NextResponse } from "next/server";
import { getAgent, updateAgent } from "@/lib/db/agents";
import { parseId, readJson, route } from "@/lib/http/route";
import { removeAgent } from "@/lib/ingest/remove";
import { agentUpdateSchema } from "@/lib/validations/agent";

type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (_req, { params }: Ctx) => NextResponse.json(getAgent(parseId((await params).id, "Agent"))));

export const PATCH = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  const input = agentUpdateSchema.parse(await readJson(req));
  return NextResponse.json(updateAgent(id, input));
});

export const DELETE = route(async (_req, { params }: Ctx) => {
  await removeAgent(parseId((await params).id, "Agent"));
  return new NextResponse(null, { status: 204 });
});
