import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { startEvaluation } from "@/lib/evaluation/run";
import { listRuns, runResults } from "@/lib/db/eval-runs";
import { runView } from "@/lib/evaluation/views";
import { evalRequestSchema, pairSourceSchema } from "@/lib/validations/pair";

/** The agent's runs, oldest first; `?source=log` keeps the runs that scored that source's pairs only. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/evals">>("viewer", async ({ req, agent }) => {
  const raw = new URL(req.url).searchParams.get("source");
  const source = raw === null ? null : pairSourceSchema.parse(raw);
  return NextResponse.json({
    runs: listRuns(agent.id)
      .filter((r) => source === null || r.pair_source === source)
      .map((r) => runView(r)),
  });
});

/** Runs an evaluation and answers with its figures; `"wait": false` answers 202 at once instead; `"reranker": "none"` ranks without the agent's reranker. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/evals">>("viewer", async ({ req, agent }) => {
  const { k, wait, mode, source, reranker } = evalRequestSchema.parse(await readJson(req));
  const { runId, done } = startEvaluation(agent.id, k, mode, source ?? null, reranker === "agent");
  if (!wait) {
    done.catch(() => {}); // the failure is kept on the run, where the caller reads it
    return NextResponse.json(
      { run_id: runId, status: "running" },
      { status: 202, headers: { location: `/api/agents/${agent.id}/evals/${runId}` } },
    );
  }
  const run = await done;
  return NextResponse.json(runView(run, runResults(run.id)), { status: 201 });
});
