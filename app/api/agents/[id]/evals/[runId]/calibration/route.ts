import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { getRun, runResults } from "@/lib/db/eval-runs";
import { calibrateCut } from "@/lib/evaluation/calibrate";
import { embedder } from "@/lib/embeddings/configured";
import { invalid } from "@/lib/core/errors";
import { noMatchCut } from "@/lib/retrieval/cut";
import { MAX_K } from "@/lib/validations/pair";

/** The no-match cut this finished run's pairs recommend (`?k=`, default the run's k), and the figures at the agent's cut now. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/evals/[runId]/calibration">>("viewer", async ({ req, agent, params }) => {
  const run = getRun(agent.id, parseId(params.runId, "Evaluation run"));
  if (run.status !== "done") throw invalid(`Run ${run.id} has not finished; calibrate from a finished run.`);
  const raw = new URL(req.url).searchParams.get("k");
  const k = raw === null ? run.k : Number(raw);
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalid(`k must be an integer from 1 to ${MAX_K}.`);
  const current = run.embedding_model === embedder().model ? noMatchCut(agent, run.embedding_model) : null;
  return NextResponse.json({ run_id: run.id, embedding_model: run.embedding_model, ...calibrateCut(runResults(run.id), k, current) });
});
