import { NextResponse } from "next/server";
import { parseId, readJson, route } from "@/lib/http/route";
import { documentSearchTool } from "@/lib/retrieval/retrieve";
import { searchSchema } from "@/lib/validations/search";
import { getAgent } from "@/lib/db/agents";

type Ctx = { params: Promise<{ id: string }> };

export const POST = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  const { query, top_k } = searchSchema.parse(await readJson(req));
  const results = await documentSearchTool(id, query, top_k);
  return NextResponse.json({ query, results });
});
