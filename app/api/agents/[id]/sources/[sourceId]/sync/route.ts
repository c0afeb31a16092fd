import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { startSourceSync } from "@/lib/sources/sync";
import { syncRequestSchema } from "@/lib/validations/source";

/** Starts a sync: 202 with its record at once, or with `{"wait": true}` 200 once it has finished. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/sources/[sourceId]/sync">>("editor", async ({ req, agent, params }) => {
  const { wait } = syncRequestSchema.parse(await readJson(req, { optional: true }));
  const { record, done } = startSourceSync(agent.id, parseId(params.sourceId, "Source"));
  if (!wait) {
    void done.catch(() => {});
    return NextResponse.json({ sync: record }, { status: 202 });
  }
  return NextResponse.json({ sync: await done });
});
