import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { askAgent } from "@/lib/ask/ask";
import { askSchema } from "@/lib/validations/search";
import { parseFilter } from "@/lib/core/filter";

/** POST /api/agents/{id}/ask (and its alias /agents/{id}/ask): answers from the agent's documents, or refuses and says why. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/ask">>("viewer", async ({ req, view }) => {
  const { question, top_k, filter } = askSchema.parse(await readJson(req));
  return NextResponse.json(await askAgent(view, question, top_k, "api", parseFilter(filter)), { headers: { "Cache-Control": "no-store" } });
});
