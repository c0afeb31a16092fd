import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { getRun, runResults } from "@/lib/db/eval-runs";
import { calibrateCut, calibrateRerankCut } from "@/lib/evaluation/calibrate";
import { embedder } from "@/lib/embeddings/configured";
import { invalid } from "@/lib/core/errors";
import { noMatchCut, rerankCutFor } from "@/lib/retrieval/cut";
import { MAX_K } from "@/lib/validations/pair";

/**
 * The no-match cut this finished run's pairs recommend (`?k=`, default the run's k), and the
 * figures at the agent's cut now; for a run made with a reranker, the cut on its score
 * (`"score": "rerank"`, higher is better), for the reranker version the run ranked with.
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/evals/[runId]/calibration">>("viewer", async ({ req, agent, params }) => {
  const run = getRun(agent.id, parseId(params.runId, "Evaluation run"));
  if (run.status !== "done") throw invalid(`Run ${run.id} has not finished; calibrate from a finished run.`);
  const raw = new URL(req.url).searchParams.get("k");
  const k = raw === null ? run.k : Number(raw);
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalid(`k must be an integer from 1 to ${MAX_K}.`);
  // A run ranked with a reranker calibrates the cut on its scores, for the version it ran with.
  if (run.reranker !== "none" && run.reranker_version) {
    const current = rerankCutFor(agent, run.reranker_version);
    return NextResponse.json({
      run_id: run.id,
      embedding_model: run.embedding_model,
      score: "rerank",
      reranker_version: run.reranker_version,
      ...calibrateRerankCut(runResults(run.id), k, current),
    });
  }
  const current = run.embedding_model === embedder().model ? noMatchCut(agent, run.embedding_model) : null;
  return NextResponse.json({
    run_id: run.id,
    embedding_model: run.embedding_model,
    score: "distance",
    ...calibrateCut(runResults(run.id), k, current),
  });
});
