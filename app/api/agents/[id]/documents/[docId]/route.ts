import { NextResponse } from "next/server";
import { actorOf, parseId, readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { conflict, invalid } from "@/lib/core/errors";
import { checkMetadataPatch } from "@/lib/core/metadata";
import { patchDocumentsMetadata } from "@/lib/db/metadata";
import { getDocument } from "@/lib/db/documents";
import { hasDocumentFile } from "@/lib/db/document-files";
import { documentCuration, inDraft, switchDocument } from "@/lib/ingest/curate";
import { rechunkInDraft, stageDocumentRemoval } from "@/lib/ingest/drafts";
import { documentSwitchSchema } from "@/lib/validations/curation";
import { removeDocument } from "@/lib/ingest/remove";
import { rechunkDocument, type IngestResult } from "@/lib/ingest/pipeline";
import { chunkSettingsSchema } from "@/lib/validations/upload";

type Ctx = RouteCtx<"/api/agents/[id]/documents/[docId]">;

/** A version staged in a draft changes only through its draft. */
function served(agentId: number, documentId: number) {
  const doc = getDocument(agentId, documentId);
  if (doc.draft_id !== null)
    throw conflict(`Document ${documentId} is staged in draft ${doc.draft_id}; change it there (?draft=${doc.draft_id}).`);
  return doc;
}

/** The document (`?draft=`: the draft's version of it, when the draft has one). */
export const GET = withAgent<Ctx>("viewer", async ({ req, agent, params }) => {
  const doc = getDocument(agent.id, inDraft(agent.id, parseId(params.docId, "Document"), requestDraft(req, agent.id)));
  // Each chunk with its id, its place (`index`) and its curation; none while the document is not ready.
  const shown = doc.status === "ready" || doc.status === "draft";
  const curation = shown ? documentCuration(doc) : { enabled: doc.enabled !== 0, chunks: [], can_undo: false };
  const chunks = curation.chunks.map((c) => ({ ...c, index: c.position }));
  // has_file: the uploaded PDF is kept, and GET .../file gives it (the document page's viewer).
  const has_file = hasDocumentFile(agent.id, doc.sha256);
  return NextResponse.json({ ...doc, enabled: curation.enabled, can_undo: curation.can_undo, has_file, chunks });
});

/**
 * Re-chunks a document's stored text with other settings (the new version replaces it once
 * ready, its curation carried over by lib/ingest/carry.ts), or with `{"enabled"}` switches the
 * whole document off or on. `?draft=`: staged in that draft. `{"metadata": {...}}` sets the
 * document's metadata keys (null removes one), at once.
 */
export const PATCH = withAgent<Ctx>("editor", async ({ req, agent, params }) => {
  const id = parseId(params.docId, "Document");
  const draftId = requestDraft(req, agent.id);
  const body = await readJson(req);
  if (body && typeof body === "object" && "metadata" in body) {
    // Metadata changes apply at once, to the served version: no vector is written, nothing re-embedded.
    if (draftId !== undefined) throw invalid("Metadata changes apply at once; they are not staged in a draft. Leave out ?draft=.");
    const extra = Object.keys(body).filter((k) => k !== "metadata");
    if (extra.length) throw invalid(`Change metadata alone; send ${extra.join(", ")} in a request of its own.`);
    const patch = checkMetadataPatch((body as { metadata: unknown }).metadata);
    const metadata = patchDocumentsMetadata(agent.id, [id], patch).get(id);
    return NextResponse.json({ document_id: id, metadata });
  }
  if (body && typeof body === "object" && "enabled" in body) {
    const { enabled } = documentSwitchSchema.parse(body);
    return NextResponse.json(await switchDocument(agent.id, id, enabled, actorOf(req), { draftId }));
  }
  const parsed = chunkSettingsSchema.parse(body);
  const settings = { chunkSize: parsed.chunk_size, chunkOverlap: parsed.chunk_overlap, chunkStrategy: parsed.chunk_strategy };
  let result: IngestResult;
  if (draftId !== undefined) result = await rechunkInDraft(agent.id, draftId, id, settings);
  else {
    served(agent.id, id);
    result = await rechunkDocument(agent.id, id, settings);
  }
  return NextResponse.json({ document: result }, { status: result.status === "ready" ? 200 : 500 });
});

/** Deletes the document and its vectors; `?draft=`: stages its removal in that draft. */
export const DELETE = withAgent<Ctx>("editor", async ({ req, agent, params }) => {
  const id = parseId(params.docId, "Document");
  const draftId = requestDraft(req, agent.id);
  if (draftId !== undefined) return NextResponse.json(await stageDocumentRemoval(agent.id, draftId, id));
  served(agent.id, id);
  await removeDocument(agent.id, id);
  return new NextResponse(null, { status: 204 });
});
