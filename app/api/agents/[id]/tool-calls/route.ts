import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { recentQueries, recentToolCalls } from "@/lib/db/tool-calls";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/tool-calls">>("viewer", async ({ req, agent }) => {
  const search = new URL(req.url).searchParams;
  const limit = Math.min(Math.max(Number(search.get("limit")) || 20, 1), 200);
  // ?distinct=query: the latest call of each query (the inspector's "Recent queries").
  const calls = search.get("distinct") === "query" ? recentQueries(agent.id, limit) : recentToolCalls(agent.id, limit);
  // What a call returned is stored as JSON text; the API gives it as an object.
  return NextResponse.json({ tool_calls: calls.map((c) => ({ ...c, retrieval: c.retrieval ? JSON.parse(c.retrieval) : null })) });
});
