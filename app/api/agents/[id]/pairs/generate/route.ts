import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { generatePairs } from "@/lib/evaluation/generate";
import { generateSchema } from "@/lib/validations/generate";

/** Proposes questions for the agent's documents ({"documents": [ids] | "all", "per_document": n}); they count in runs once accepted. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/pairs/generate">>("editor", async ({ req, agent }) => {
  const input = generateSchema.parse(await readJson(req));
  const report = await generatePairs(agent.id, input);
  return NextResponse.json(report, { status: report.proposed > 0 ? 201 : 200 });
});
