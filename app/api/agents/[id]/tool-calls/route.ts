import { NextResponse } from "next/server";
import { getAgent } from "@/lib/agents";
import { parseId, route } from "@/lib/api";
import { recentToolCalls } from "@/lib/tool-calls";

type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  const limit = Math.min(Math.max(Number(new URL(req.url).searchParams.get("limit")) || 20, 1), 200);
  return NextResponse.json({ tool_calls: recentToolCalls(id, limit) });
});
