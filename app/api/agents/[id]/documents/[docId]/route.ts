import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { storedChunks } from "@/lib/db/chunks";
import { getDocument } from "@/lib/db/documents";
import { removeDocument } from "@/lib/ingest/remove";
import { rechunkDocument, type IngestResult } from "@/lib/ingest/pipeline";
import { chunkSettingsSchema } from "@/lib/validations/upload";

export const GET = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>("viewer", async ({ agent, params }) => {
  const doc = getDocument(agent.id, parseId(params.docId, "Document"));
  const chunks = doc.status === "ready" ? storedChunks(doc.id) : [];
  return NextResponse.json({ ...doc, chunks });
});

/** Re-chunks a document's stored text with other settings: the new version replaces it once ready. */
export const PATCH = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]">>("editor", async ({ req, agent, params }) => {
  const id = parseId(params.docId, "Document");
  const settings = chunkSettingsSchema.parse(await readJson(req));
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
