import { NextResponse } from "next/server";
import { actorOf, parseChunkId, readJson, requestDraft, withAgent, type RouteCtx } from "@/lib/http/route";
import { changeChunk, deleteChunk } from "@/lib/ingest/curate";
import { chunkChangeSchema } from "@/lib/validations/curation";

type Ctx = RouteCtx<"/api/agents/[id]/chunks/[chunkId]">;

/** Changes one chunk (`?draft=`: staged in that draft): its text (embedded again, marked edited), whether it is on, the questions it answers. */
export const PATCH = withAgent<Ctx>("editor", async ({ req, agent, params }) => {
  const chunkId = parseChunkId(params.chunkId);
  const change = chunkChangeSchema.parse(await readJson(req));
  const result = await changeChunk(agent.id, chunkId, change, actorOf(req), { draftId: requestDraft(req, agent.id) });
  return NextResponse.json({ ...result, chunk: result.chunks.find((c) => c.id === chunkId) ?? null });
});

/** Removes one chunk from its document (a new version of it without the chunk). */
export const DELETE = withAgent<Ctx>("editor", async ({ req, agent, params }) => {
  const result = await deleteChunk(agent.id, parseChunkId(params.chunkId), actorOf(req), { draftId: requestDraft(req, agent.id) });
  return NextResponse.json(result);
});
