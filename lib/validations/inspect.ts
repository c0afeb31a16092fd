import { z } from "zod";

export const inspectSchema = z.object({
  query: z.string({ error: "query is required." }).trim().min(1, "query must not be empty."),
  expected_document_id: z.number().int().positive().optional(),
});
