import { NextResponse } from "next/server";
import { parseId, readJson, withAgent, type RouteCtx } from "@/lib/http/route";
import { triageQuestion } from "@/lib/questions/triage";
import { triageSchema } from "@/lib/validations/questions";
import { pairView } from "@/lib/evaluation/views";

/** One triage action: `{"action": "label", "expected": "refunds.md"}`, `unanswerable`, `gap`, `ignore` or `reopen`. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/questions/[groupId]">>("editor", async ({ req, agent, params }) => {
  const groupId = parseId(params.groupId, "Question");
  const input = triageSchema.parse(await readJson(req));
  const { group, pair } = triageQuestion(agent.id, groupId, input);
  return NextResponse.json({ id: group.id, status: group.status, expected: group.expected_filename, pair: pair && pairView(pair) });
});
