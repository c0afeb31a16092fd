import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { editPair } from "@/lib/evaluation/labeled-pairs";
import { pairView } from "@/lib/evaluation/views";
import { deletePair, getPair } from "@/lib/db/pairs";
import { pairUpdateSchema } from "@/lib/validations/pair";

const pairId = (params: { pairId: string }) => parseId(params.pairId, "Labeled pair");

export const GET = withAgent<RouteCtx<"/api/agents/[id]/pairs/[pairId]">>("viewer", async ({ agent, params }) =>
  NextResponse.json(pairView(getPair(agent.id, pairId(params)))),
);

export const PATCH = withAgent<RouteCtx<"/api/agents/[id]/pairs/[pairId]">>("editor", async ({ req, agent, params }) => {
  const id = pairId(params);
  const input = pairUpdateSchema.parse(await readJson(req));
  return NextResponse.json(pairView(editPair(agent.id, id, input)));
});

export const DELETE = withAgent<RouteCtx<"/api/agents/[id]/pairs/[pairId]">>("editor", async ({ agent, params }) => {
  deletePair(agent.id, pairId(params));
  return new NextResponse(null, { status: 204 });
});
