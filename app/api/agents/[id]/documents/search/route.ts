import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { documentSearchTool } from "@/lib/retrieval/retrieve";
import { searchSchema } from "@/lib/validations/search";

export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents/search">>(async ({ req, agent }) => {
  const { query, top_k } = searchSchema.parse(await readJson(req));
  const results = await documentSearchTool(agent.id, query, top_k);
  return NextResponse.json({ query, results });
}, { gated: true });
