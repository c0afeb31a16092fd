import { z } from "zod";

export const TOOLS = ["document_search"] as const;
export type Tool = (typeof TOOLS)[number];

export const agentSchema = z.object({
  name: z.string().trim().min(1, "Name is required.").max(80, "Name is at most 80 characters."),
  tools: z.array(z.enum(TOOLS)).default(["document_search"]),
});
export const agentUpdateSchema = agentSchema.partial();

export type AgentInput = z.input<typeof agentSchema>;
