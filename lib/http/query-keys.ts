/** Every react-query key in one place, so a mutation can invalidate by prefix. */
export const queryKeys = {
  agent: (agentId: number) => ["agent", agentId] as const,
  inspect: (agentId: number, query: string, topK: number, expected: number | null) =>
    ["agent", agentId, "inspect", query, topK, expected] as const,
  toolCalls: (agentId: number) => ["agent", agentId, "tool-calls"] as const,
  upload: (agentId: number, jobId: string) => ["agent", agentId, "upload", jobId] as const,
  evals: (agentId: number) => ["agent", agentId, "evals"] as const,
  evalRun: (agentId: number, runId: number) => ["agent", agentId, "evals", runId] as const,
  audit: ["audit"] as const,
};
