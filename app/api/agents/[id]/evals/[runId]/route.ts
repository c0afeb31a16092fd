import { NextResponse } from "next/server";
import { getAgent } from "@/lib/db/agents";
import { parseId, route } from "@/lib/http/route";
import { getRun, runResults } from "@/lib/db/eval-runs";
import { runView } from "@/lib/evaluation/views";

type Ctx = { params: Promise<{ id: string; runId: string }> };

/** One run: progress while it runs, then its figures and every pair's result. */
export const GET = route(async (_req, { params }: Ctx) => {
  const p = await params;
  const agentId = parseId(p.id, "Agent");
  getAgent(agentId);
  const run = getRun(agentId, parseId(p.runId, "Evaluation run"));
  return NextResponse.json(runView(run, run.status === "done" ? runResults(run.id) : undefined));
});
