import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { listQuestions } from "@/lib/questions/list";
import { questionListSchema } from "@/lib/validations/questions";

/** The agent's own questions from the log, grouped, the most asked first: `?since=&status=&q=&limit=`. */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/questions">>("viewer", async ({ req, agent }) => {
  const filter = questionListSchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  return NextResponse.json(await listQuestions(agent.id, filter));
});
