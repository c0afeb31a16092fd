import "server-only";
import { notFound } from "next/navigation";
import { findAgent, type Agent } from "../db/agents";

/** The agent named by a page's `[id]` segment, or the not-found page. */
export async function agentFromParams(params: Promise<{ id: string }>): Promise<Agent> {
  const { id } = await params;
  const agent = /^\d+$/.test(id) ? findAgent(Number(id)) : undefined;
  if (!agent) notFound();
  return agent;
}
