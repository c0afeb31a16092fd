import { NextResponse } from "next/server";
import { readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { AgentView } from "@/lib/db/agent-view";
import { inspectQuery } from "@/lib/retrieval/inspect";
import { dropDraftKeywords } from "@/lib/retrieval/draft-keywords";
import { inspectSchema } from "@/lib/validations/inspect";
import { parseFilter } from "@/lib/core/filter";

/**
 * The inspector: the top_k results and the full-ranking diagnosis of one query, from one ranking;
 * `?draft=`: as the agent would rank once that draft is published.
 */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/inspect">>("viewer", async ({ req, view }) => {
  const draftId = requestDraft(req, view.id);
  const input = inspectSchema.parse(await readJson(req));
  // `filter`: ranked among the documents a metadata filter matches, as the agent's call with it was.
  const through = (draftId === undefined ? view : AgentView.asDraft(view, draftId)).filtered(parseFilter(input.filter));
  try {
    return NextResponse.json(await inspectQuery(through, input.query, input.top_k, input.expected_document_id, input.mode));
  } finally {
    dropDraftKeywords(through);
  }
});
