import { NextResponse } from "next/server";
import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { storedChunks } from "@/lib/db/chunks";
import { getDocument } from "@/lib/db/documents";
import { removeDocument } from "@/lib/ingest/remove";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>(async ({ agent, params }) => {
  const doc = getDocument(agent.id, parseId(params.docId, "Document"));
  const chunks = doc.status === "ready" ? storedChunks(doc.id) : [];
  return NextResponse.json({ ...doc, chunks });
});

export const DELETE = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>(async ({ agent, params }) => {
  await removeDocument(agent.id, parseId(params.docId, "Document"));
  return new NextResponse(null, { status: 204 });
});
