import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { getRun, runResults } from "@/lib/db/eval-runs";
import { runView } from "@/lib/evaluation/views";

/** One run: progress while it runs, then its figures and every pair's result. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/evals/[runId]">>("viewer", async ({ agent, params }) => {
  const run = getRun(agent.id, parseId(params.runId, "Evaluation run"));
  return NextResponse.json(runView(run, run.status === "done" ? runResults(run.id) : undefined));
});
