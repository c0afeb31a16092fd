import { z } from "zod";
import { searchSchema } from "./search";
import { RETRIEVAL_MODES } from "./agent";

/** The inspector asks what the search endpoint answers, plus the document that should have come up. */
export const inspectSchema = searchSchema.extend({
  expected_document_id: z.number().int().positive().optional(),
  /** Ranks in this mode without changing the agent's own (default: the agent's mode). */
  mode: z.enum(RETRIEVAL_MODES, { error: `mode must be one of: ${RETRIEVAL_MODES.join(", ")}.` }).optional(),
});
