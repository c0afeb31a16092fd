import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { rerankerStatus } from "@/lib/rerank/settings";

/** The agent's rerank settings, the learned model it serves and the newest trained (with their cross-validation), and whether the labels changed since. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/reranker">>("viewer", async ({ agent }) =>
  NextResponse.json(rerankerStatus(agent.id)),
);
