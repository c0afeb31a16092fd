import { NextResponse } from "next/server";
import { actorOf, parseId, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { undoLastChange } from "@/lib/ingest/curate";

/** Undoes the document's last curation change (undone again, it comes back). */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]/undo">>("editor", async ({ req, agent, params }) => {
  const result = await undoLastChange(agent.id, parseId(params.docId, "Document"), actorOf(req), { draftId: requestDraft(req, agent.id) });
  return NextResponse.json(result);
});
