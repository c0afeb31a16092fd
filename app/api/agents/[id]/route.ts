import { NextResponse } from "next/server";
import { updateAgent } from "@/lib/db/agents";
import { readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { invalid } from "@/lib/core/errors";
import { stageSettings } from "@/lib/ingest/drafts";
import { removeAgent } from "@/lib/ingest/remove";
import { agentUpdateSchema } from "@/lib/validations/agent";
import { embedder } from "@/lib/embeddings/configured";
import { rerankerChange } from "@/lib/rerank/settings";
import { rerankFor } from "@/lib/retrieval/rerank";

export const GET = withAgent<RouteCtx<"/api/agents/[id]">>("viewer", async ({ agent }) => NextResponse.json(agent));

/**
 * Name, tools, the retrieval mode, the no-match cut (`"max_distance": 0.75`, in the configured
 * model's distances; null clears it) and the rerank stage (`reranker`, `rerank_candidates`,
 * `mmr_lambda`, and `rerank_cut`, a cut on the reranker's score kept with its version).
 */
export const PATCH = withAgent<RouteCtx<"/api/agents/[id]">>("editor", async ({ req, agent }) => {
  const { max_distance, reranker, rerank_candidates, mmr_lambda, force, rerank_cut, ...input } = agentUpdateSchema.parse(
    await readJson(req),
  );
  const rerank = { reranker, rerank_candidates, mmr_lambda, force };
  const cut =
    max_distance === undefined ? undefined : max_distance === null ? null : { maxDistance: max_distance, model: embedder().model };
  // `?draft=`: the cut and the mode are staged in that draft, served once it is published.
  const draftId = requestDraft(req, agent.id);
  if (draftId !== undefined) {
    const others = [
      ...Object.keys(input),
      ...Object.keys(rerank).filter((k) => rerank[k as keyof typeof rerank] !== undefined),
      ...(rerank_cut !== undefined ? ["rerank_cut"] : []),
    ].filter((k) => k !== "retrieval_mode");
    if (others.length) throw invalid(`A draft stages only retrieval_mode and max_distance, not ${others.join(", ")}.`);
    return NextResponse.json(stageSettings(agent.id, draftId, { retrieval_mode: input.retrieval_mode, cut }));
  }
  // The reranker is checked first: `learned` needs a model of this agent that won, `http` and `chat` their endpoint.
  const change = rerankerChange(agent, rerank);
  // A cut on the reranker's score is kept with the version of the reranker that will serve.
  let rerankCut: { cut: number; version: string } | null | undefined = rerank_cut === null ? null : undefined;
  if (typeof rerank_cut === "number") {
    const serving = rerankFor({ ...agent, ...change });
    if (!serving) throw invalid("rerank_cut is a cut on a reranker's score: choose a reranker first.");
    rerankCut = { cut: rerank_cut, version: serving.reranker.version };
  }
  return NextResponse.json(updateAgent(agent.id, { ...input, ...change, cut, rerankCut }));
});

export const DELETE = withAgent<RouteCtx<"/api/agents/[id]">>("editor", async ({ agent }) => {
  await removeAgent(agent.id);
  return new NextResponse(null, { status: 204 });
});
