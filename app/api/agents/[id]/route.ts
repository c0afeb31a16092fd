import { NextResponse } from "next/server";
import { updateAgent } from "@/lib/db/agents";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { removeAgent } from "@/lib/ingest/remove";
import { agentUpdateSchema } from "@/lib/validations/agent";
import { embedder } from "@/lib/embeddings/configured";

export const GET = withAgent<RouteCtx<"/api/agents/[id]">>("viewer", async ({ agent }) => NextResponse.json(agent));

/** Name, tools and the no-match cut (`"max_distance": 0.75`, in the configured model's distances; null clears it). */
export const PATCH = withAgent<RouteCtx<"/api/agents/[id]">>("editor", async ({ req, agent }) => {
  const { max_distance, ...input } = agentUpdateSchema.parse(await readJson(req));
  const cut =
    max_distance === undefined ? undefined : max_distance === null ? null : { maxDistance: max_distance, model: embedder().model };
  return NextResponse.json(updateAgent(agent.id, { ...input, cut }));
});

export const DELETE = withAgent<RouteCtx<"/api/agents/[id]">>("editor", async ({ agent }) => {
  await removeAgent(agent.id);
  return new NextResponse(null, { status: 204 });
});
