import { NextResponse } from "next/server";
import { z } from "zod";
import { actorOf, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { discard, draftView, draftViews, newDraft } from "@/lib/ingest/drafts";
import { fixChangeSchema, stageFix } from "@/lib/evaluation/fixes";

/** The agent's drafts, each with what it stages. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/drafts">>("viewer", async ({ agent }) =>
  NextResponse.json({ drafts: draftViews(agent.id) }),
);

const draftSchema = z.strictObject({ name: z.string({ error: "name must be a string." }), fix: fixChangeSchema.optional() });

/**
 * A new draft: every content or retrieval change that names it with `?draft=` is staged there.
 * With `fix` (a suggested fix's change, GET /api/agents/{id}/pairs/{pairId}/fixes), that change is
 * staged in it at once; when it cannot be, no draft is left behind.
 */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/drafts">>("editor", async ({ req, agent }) => {
  const { name, fix } = draftSchema.parse(await readJson(req));
  const draft = newDraft(agent.id, name);
  if (fix) {
    try {
      await stageFix(agent.id, draft.id, fix, actorOf(req));
    } catch (err) {
      await discard(agent.id, draft.id);
      throw err;
    }
  }
  return NextResponse.json(fix ? draftView(agent.id, draft.id) : draft, { status: 201 });
});
