import { NextResponse } from "next/server";
import { getAgent } from "@/lib/db/agents";
import { parseId, readJson, route } from "@/lib/http/route";
import { editPair } from "@/lib/evaluation/labeled-pairs";
import { pairView } from "@/lib/evaluation/views";
import { deletePair, getPair } from "@/lib/db/pairs";
import { pairUpdateSchema } from "@/lib/validations/pair";

type Ctx = { params: Promise<{ id: string; pairId: string }> };

async function ids(params: Ctx["params"]) {
  const p = await params;
  const agentId = parseId(p.id, "Agent");
  getAgent(agentId);
  return { agentId, pairId: parseId(p.pairId, "Labeled pair") };
}

export const GET = route(async (_req, { params }: Ctx) => {
  const { agentId, pairId } = await ids(params);
  return NextResponse.json(pairView(getPair(agentId, pairId)));
});

export const PATCH = route(async (req, { params }: Ctx) => {
  const { agentId, pairId } = await ids(params);
  const input = pairUpdateSchema.parse(await readJson(req));
  return NextResponse.json(pairView(editPair(agentId, pairId, input)));
});

export const DELETE = route(async (_req, { params }: Ctx) => {
  const { agentId, pairId } = await ids(params);
  deletePair(agentId, pairId);
  return new NextResponse(null, { status: 204 });
});
