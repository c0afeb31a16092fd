import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { gapsCsv, listGaps } from "@/lib/questions/gaps";
import { gapsQuerySchema } from "@/lib/validations/questions";
import { slug } from "@/lib/format/slug";
import { oneGapsList } from "@/lib/core/one-at-a-time";

/**
 * The questions no article answers yet, the most asked first: `?beyond=0.6` (default: the cut),
 * `?format=csv`. Each is asked again, so one list at a time across the app (409 meanwhile).
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/gaps">>("viewer", async ({ req, agent }) => {
  const { beyond, format } = gapsQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  const list = await oneGapsList(agent.id, () => listGaps(agent.id, beyond ?? null));
  if (format !== "csv") return NextResponse.json(list);
  return new Response(gapsCsv(list), {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${slug(agent)}-gaps.csv"` },
  });
});
