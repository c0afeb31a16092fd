import { NextResponse } from "next/server";
import { actorOf, parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { getDocument } from "@/lib/db/documents";
import { documentCuration, switchDocument } from "@/lib/ingest/curate";
import { documentSwitchSchema } from "@/lib/validations/curation";
import { removeDocument } from "@/lib/ingest/remove";
import { rechunkDocument, type IngestResult } from "@/lib/ingest/pipeline";
import { chunkSettingsSchema } from "@/lib/validations/upload";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>("viewer", async ({ agent, params }) => {
  const doc = getDocument(agent.id, parseId(params.docId, "Document"));
  // Each chunk with its id, its place (`index`) and its curation; none while the document is not ready.
  const curation = doc.status === "ready" ? documentCuration(doc) : { enabled: doc.enabled !== 0, chunks: [], can_undo: false };
  const chunks = curation.chunks.map((c) => ({ ...c, index: c.position }));
  return NextResponse.json({ ...doc, enabled: curation.enabled, can_undo: curation.can_undo, chunks });
});

/**
 * Re-chunks a document's stored text with other settings (the new version replaces it once
 * ready, its curation carried over by lib/ingest/carry.ts), or with `{"enabled"}` switches the
 * whole document off or on.
 */
export const PATCH = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>("editor", async ({ req, agent, params }) => {
  const id = parseId(params.docId, "Document");
  const body = await readJson(req);
  if (body && typeof body === "object" && "enabled" in body) {
    const { enabled } = documentSwitchSchema.parse(body);
    return NextResponse.json(await switchDocument(agent.id, id, enabled, actorOf(req)));
  }
  const settings = chunkSettingsSchema.parse(body);
  getDocument(agent.id, id);
  const result: IngestResult = await rechunkDocument(agent.id, id, {
    chunkSize: settings.chunk_size,
    chunkOverlap: settings.chunk_overlap,
    chunkStrategy: settings.chunk_strategy,
  });
  return NextResponse.json({ document: result }, { status: result.status === "ready" ? 200 : 500 });
});

export const DELETE = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>("editor", async ({ agent, params }) => {
  await removeDocument(agent.id, parseId(params.docId, "Document"));
  return new NextResponse(null, { status: 204 });
});
