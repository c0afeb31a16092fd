import { NextResponse } from "next/server";
import { readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { AgentView } from "@/lib/db/agent-view";
import { inspectQuery } from "@/lib/retrieval/inspect";
import { dropDraftKeywords } from "@/lib/retrieval/draft-keywords";
import { inspectSchema } from "@/lib/validations/inspect";

/**
 * The inspector: the top_k results and the full-ranking diagnosis of one query, from one ranking;
 * `?draft=`: as the agent would rank once that draft is published.
 */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/inspect">>("viewer", async ({ req, view }) => {
  const draftId = requestDraft(req, view.id);
  const input = inspectSchema.parse(await readJson(req));
  const through = draftId === undefined ? view : AgentView.asDraft(view, draftId);
  try {
    return NextResponse.json(await inspectQuery(through, input.query, input.top_k, input.expected_document_id, input.mode));
  } finally {
    dropDraftKeywords(through);
  }
});
