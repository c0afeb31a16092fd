import { NextResponse } from "next/server";
import { z } from "zod";
import { readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { draftViews, newDraft } from "@/lib/ingest/drafts";

/** The agent's drafts, each with what it stages. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/drafts">>("viewer", async ({ agent }) =>
  NextResponse.json({ drafts: draftViews(agent.id) }),
);

const draftSchema = z.strictObject({ name: z.string({ error: "name must be a string." }) });

/** A new draft: every content or retrieval change that names it with `?draft=` is staged there. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/drafts">>("editor", async ({ req, agent }) => {
  const { name } = draftSchema.parse(await readJson(req));
  return NextResponse.json(newDraft(agent.id, name), { status: 201 });
});
