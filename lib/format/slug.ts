/** A file-name-safe form of the agent's name, for downloads. */
export const slug = (agent: { id: number; name: string }) =>
  agent.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "") || `agent-${agent.id}`;
