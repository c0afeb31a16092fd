import { z } from "zod";
import { searchSchema } from "./search";

/** The inspector asks what the search endpoint answers, plus the document that should have come up. */
export const inspectSchema = searchSchema.extend({
  expected_document_id: z.number().int().positive().optional(),
});
