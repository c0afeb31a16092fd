import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { getDraft } from "@/lib/db/drafts";
import { discard, draftView } from "@/lib/ingest/drafts";

type Ctx = RouteCtx<"/api/agents/[id]/drafts/[draftId]">;

export const GET = withAgent<Ctx>("viewer", async ({ agent, params }) =>
  NextResponse.json(draftView(agent.id, parseId(params.draftId, "Draft"))),
);

/** Discards the draft: its staged versions and their vectors go, nothing served changes. */
export const DELETE = withAgent<Ctx>("editor", async ({ agent, params }) => {
  const draft = getDraft(agent.id, parseId(params.draftId, "Draft"));
  await discard(agent.id, draft.id);
  return new NextResponse(null, { status: 204 });
});
