import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { startEvaluation } from "@/lib/evaluation/run";
import { listRuns, runResults } from "@/lib/db/eval-runs";
import { runView } from "@/lib/evaluation/views";
import { evalRequestSchema } from "@/lib/validations/pair";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/evals">>(async ({ agent }) =>
  NextResponse.json({ runs: listRuns(agent.id).map((r) => runView(r)) }),
);

/** Runs an evaluation and answers with its figures; `"wait": false` answers 202 at once instead. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/evals">>(async ({ req, agent }) => {
  const { k, wait, mode } = evalRequestSchema.parse(await readJson(req));
  const { runId, done } = startEvaluation(agent.id, k, mode);
  if (!wait) {
    done.catch(() => {}); // the failure is kept on the run, where the caller reads it
    return NextResponse.json({ run_id: runId, status: "running" }, { status: 202, headers: { location: `/api/agents/${agent.id}/evals/${runId}` } });
  }
  const run = await done;
  return NextResponse.json(runView(run, runResults(run.id)), { status: 201 });
});
