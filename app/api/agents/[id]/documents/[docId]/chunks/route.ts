import { NextResponse } from "next/server";
import { actorOf, parseId, readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { addChunk } from "@/lib/ingest/curate";
import { newChunkSchema } from "@/lib/validations/curation";

/** Adds a chunk written by hand, after the chunk `after` (first without it). */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents/[docId]/chunks">>("editor", async ({ req, agent, params }) => {
  const documentId = parseId(params.docId, "Document");
  const chunk = newChunkSchema.parse(await readJson(req));
  const result = await addChunk(agent.id, documentId, chunk, actorOf(req), { draftId: requestDraft(req, agent.id) });
  const at = chunk.after == null ? 0 : result.chunks.findIndex((c) => c.id === chunk.after) + 1;
  return NextResponse.json({ ...result, chunk: result.chunks[at] }, { status: 201 });
});
