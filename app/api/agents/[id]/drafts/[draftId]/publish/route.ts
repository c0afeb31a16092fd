import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { publish } from "@/lib/ingest/drafts";

/** Serves everything the draft stages at once (one transaction); 409, nothing applied, when a document it builds on changed. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/drafts/[draftId]/publish">>("editor", async ({ agent, params }) =>
  NextResponse.json(await publish(agent.id, parseId(params.draftId, "Draft"))),
);
