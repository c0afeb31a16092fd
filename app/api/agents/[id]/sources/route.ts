import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { createSource } from "@/lib/db/sources";
import { sourceSummaries } from "@/lib/sources/views";
import { sourceCreateSchema } from "@/lib/validations/source";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/sources">>("viewer", async ({ agent }) =>
  NextResponse.json({ sources: sourceSummaries(agent.id) }),
);

/** `{"sitemap": url}` or `{"urls": [...]}`, with `on_removed`, `interval_minutes` and `cross_host`; nothing is fetched until a sync. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/sources">>("editor", async ({ req, agent }) => {
  const input = sourceCreateSchema.parse(await readJson(req));
  return NextResponse.json({ source: createSource(agent.id, input) }, { status: 201 });
});
