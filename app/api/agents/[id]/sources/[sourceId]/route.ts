import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { deleteSource } from "@/lib/db/sources";
import { changeSource } from "@/lib/sources/settings";
import { sourceDetail } from "@/lib/sources/views";
import { sourceUpdateSchema } from "@/lib/validations/source";

type Ctx = RouteCtx<"/api/agents/[id]/sources/[sourceId]">;

export const GET = withAgent<Ctx>("viewer", async ({ agent, params }) =>
  NextResponse.json(sourceDetail(agent.id, parseId(params.sourceId, "Source"))),
);

/** Changes the source's settings; new `metadata` reaches the documents its pages made at once (changeSource). */
export const PATCH = withAgent<Ctx>("editor", async ({ req, agent, params }) => {
  const patch = sourceUpdateSchema.parse(await readJson(req));
  return NextResponse.json({ source: changeSource(agent.id, parseId(params.sourceId, "Source"), patch) });
});

/** The source, its pages and its syncs go; the documents it made stay. */
export const DELETE = withAgent<Ctx>("editor", async ({ agent, params }) => {
  deleteSource(agent.id, parseId(params.sourceId, "Source"));
  return new NextResponse(null, { status: 204 });
});
