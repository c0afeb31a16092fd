import { NextResponse } from "next/server";
import { getAgent } from "@/lib/db/agents";
import { parseId, route } from "@/lib/http/route";
import { recentQueries, recentToolCalls } from "@/lib/db/tool-calls";

type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  const limit = Math.min(Math.max(Number(new URL(req.url).searchParams.get("limit")) || 20, 1), 200);
  // ?distinct=query: the latest call of each query (the inspector's "Recent queries").
  const distinct = new URL(req.url).searchParams.get("distinct") === "query";
  return NextResponse.json({ tool_calls: distinct ? recentQueries(id, limit) : recentToolCalls(id, limit) });
});
