import { z } from "zod";

export const searchSchema = z.object({
  query: z.string({ error: "query is required." }).trim().min(1, "query must not be empty."),
  top_k: z
    .number({ error: "top_k must be an integer from 1 to 100." })
    .int("top_k must be an integer from 1 to 100.")
    .min(1, "top_k must be an integer from 1 to 100.")
    .max(100, "top_k must be an integer from 1 to 100.")
    .default(3),
});

/** The inspector slider's range; the API accepts up to 100. */
export const INSPECTOR_MAX_K = 50;
