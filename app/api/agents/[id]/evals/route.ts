import { NextResponse } from "next/server";
import { getAgent } from "@/lib/db/agents";
import { parseId, readJson, route } from "@/lib/http/route";
import { startEvaluation } from "@/lib/evaluation/run";
import { listRuns, runResults } from "@/lib/db/eval-runs";
import { runView } from "@/lib/evaluation/views";
import { evalRequestSchema } from "@/lib/validations/pair";

type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (_req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  return NextResponse.json({ runs: listRuns(id).map((r) => runView(r)) });
});

/** Runs an evaluation and answers with its figures; `"wait": false` answers 202 at once instead. */
export const POST = route(async (req, { params }: Ctx) => {
  const id = parseId((await params).id, "Agent");
  getAgent(id);
  const { k, wait } = evalRequestSchema.parse(await readJson(req));
  const { runId, done } = startEvaluation(id, k);
  if (!wait) {
    done.catch(() => {}); // the failure is kept on the run, where the caller reads it
    return NextResponse.json({ run_id: runId, status: "running" }, { status: 202, headers: { location: `/api/agents/${id}/evals/${runId}` } });
  }
  const run = await done;
  return NextResponse.json(runView(run, runResults(run.id)), { status: 201 });
});
