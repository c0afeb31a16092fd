import { NextResponse } from "next/server";
import { createAgent, listAgents } from "@/lib/db/agents";
import { readJson, route } from "@/lib/http/route";
import { agentSchema } from "@/lib/validations/agent";

export const GET = route("viewer", async () => NextResponse.json({ agents: listAgents() }));

export const POST = route("editor", async (req) => {
  const input = agentSchema.parse(await readJson(req));
  return NextResponse.json(createAgent(input), { status: 201 });
});
