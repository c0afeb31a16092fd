import { NextResponse } from "next/server";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { inspectQuery } from "@/lib/retrieval/inspect";
import { inspectSchema } from "@/lib/validations/inspect";

/** The inspector: the top_k results and the full-ranking diagnosis of one query, from one ranking. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/inspect">>("viewer", async ({ req, view }) => {
  const input = inspectSchema.parse(await readJson(req));
  return NextResponse.json(await inspectQuery(view, input.query, input.top_k, input.expected_document_id, input.mode));
});
