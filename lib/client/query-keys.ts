import type { RetrievalMode } from "@/lib/validations/agent";

const agent = (agentId: number) => ["agent", agentId] as const;
const evals = (agentId: number) => [...agent(agentId), "evals"] as const;
const sweeps = (agentId: number) => [...agent(agentId), "sweeps"] as const;

/**
 * Every react-query key in one place. What is cached for an agent starts with `agent(agentId)`, so a
 * change to the agent invalidates all of it with that prefix, and `agents` covers every agent.
 */
export const queryKeys = {
  agents: ["agent"] as const,
  agent,
  /** The agent itself (GET /api/agents/{id}), e.g. its retrieval mode. */
  agentRecord: (agentId: number) => [...agent(agentId), "record"] as const,
  /** `mode` null: the agent's own mode; `draft` null: what the agent serves. */
  inspect: (
    agentId: number,
    query: string,
    topK: number,
    expected: number | null,
    mode: RetrievalMode | null,
    draft: number | null = null,
    filter: string | null = null,
  ) => [...agent(agentId), "inspect", query, topK, expected, mode, draft, filter] as const,
  toolCalls: (agentId: number) => [...agent(agentId), "tool-calls"] as const,
  upload: (agentId: number, jobId: string) => [...agent(agentId), "upload", jobId] as const,
  evals,
  evalRun: (agentId: number, runId: number) => [...evals(agentId), runId] as const,
  sweeps,
  sweepLatest: (agentId: number) => [...sweeps(agentId), "latest"] as const,
  sweep: (agentId: number, sweepId: number) => [...sweeps(agentId), sweepId] as const,
  /** The text of a file before it is uploaded: it depends on the file alone, so it sits outside the agent's prefix. */
  preview: (agentId: number, file: File) => ["preview", agentId, file.name, file.size, file.lastModified] as const,
  audit: ["audit"] as const,
};
