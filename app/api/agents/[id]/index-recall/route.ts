import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { currentIndexRecall, measureIndexRecall } from "@/lib/retrieval/index-recall";

/** The agent's latest index-recall measurement (nulls and a reason when there is none). */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/index-recall">>("viewer", async ({ agent }) =>
  NextResponse.json(currentIndexRecall(agent.id)),
);

/** Measures now, replaying the agent's recent searches, and answers with the measurement. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/index-recall">>("editor", async ({ agent }) =>
  NextResponse.json(await measureIndexRecall(agent.id)),
);
