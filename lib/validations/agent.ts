import { z } from "zod";

export const TOOLS = ["document_search"] as const;
import { RETRIEVAL_MODES, type RetrievalMode } from "../core/retrieval-mode";

export { RETRIEVAL_MODES, type RetrievalMode };
export type Tool = (typeof TOOLS)[number];

export const agentSchema = z.object({
  name: z.string().trim().min(1, "Name is required.").max(80, "Name is at most 80 characters."),
  tools: z.array(z.enum(TOOLS)).default(["document_search"]),
});
/** Cosine distances run from 0 (same direction) to 2 (opposite). */
export const MAX_COSINE_DISTANCE = 2;

// Every field optional and none defaulted: a change of one setting leaves the others as they are
// (agentSchema's default for `tools` would switch the search tool back on).
export const agentUpdateSchema = z.object({
  name: agentSchema.shape.name.optional(),
  tools: z.array(z.enum(TOOLS)).optional(),
  retrieval_mode: z.enum(RETRIEVAL_MODES, { error: `retrieval_mode must be one of: ${RETRIEVAL_MODES.join(", ")}.` }).optional(),
  max_distance: z
    .number({ error: "max_distance must be a number (a raw distance), or null to clear the cut." })
    .gt(0, "max_distance must be greater than 0.")
    .max(MAX_COSINE_DISTANCE, `max_distance must be at most ${MAX_COSINE_DISTANCE} (the largest cosine distance).`)
    .nullable()
    .optional(),
  /** false: the agent's own searches and asks are logged without their text (no Questions tab). */
  log_questions: z.boolean({ error: "log_questions must be true or false." }).optional(),
});

export type AgentInput = z.input<typeof agentSchema>;
