import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { trainReranker } from "@/lib/evaluation/rerank-train";
import { rerankTrainSchema } from "@/lib/validations/agent";

/**
 * Trains the agent's learned reranker from its labels and answers with the k-fold
 * cross-validated recall@k and MRR with and without it; it is switched on only when it wins
 * (and `switch_on` is not false). 422 `no_pairs` with too few labeled questions; 409 while an
 * evaluation or another training of the agent runs.
 */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/reranker/train">>("editor", async ({ req, agent }) => {
  const { k, folds, switch_on } = rerankTrainSchema.parse(await readJson(req));
  return NextResponse.json(await trainReranker(agent.id, { k, folds, switchOn: switch_on }), { status: 201 });
});
