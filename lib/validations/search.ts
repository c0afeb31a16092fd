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

/** POST /agents/{id}/ask: a question and how many chunks to retrieve for it. */
export const askSchema = z.object({
  question: z.string({ error: "question is required." }).trim().min(1, "question must not be empty.").max(2_000, "question is at most 2000 characters."),
  top_k: searchSchema.shape.top_k,
});
