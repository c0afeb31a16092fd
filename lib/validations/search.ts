import { z } from "zod";

/**
 * The longest query or question the app takes from a client (search, inspector, ask, labeled
 * pairs), so no caller can make it embed, rank or log an unbounded text.
 */
export const MAX_QUERY_LENGTH = 2_000;

/** A query's text: trimmed, not empty, at most MAX_QUERY_LENGTH characters (422 naming the limit). */
const queryText = (name: string) =>
  z
    .string({ error: `${name} is required.` })
    .trim()
    .min(1, `${name} must not be empty.`)
    .max(MAX_QUERY_LENGTH, `${name} is at most ${MAX_QUERY_LENGTH} characters.`);

export const searchSchema = z.object({
  query: queryText("query"),
  top_k: z
    .number({ error: "top_k must be an integer from 1 to 100." })
    .int("top_k must be an integer from 1 to 100.")
    .min(1, "top_k must be an integer from 1 to 100.")
    .max(100, "top_k must be an integer from 1 to 100.")
    .default(3),
  /** A metadata filter in Chroma's `where` syntax, checked by parseFilter (lib/core/filter.ts). */
  filter: z.unknown().optional(),
});

/** The inspector slider's range; the API accepts up to 100. */
export const INSPECTOR_MAX_K = 50;

/** POST /agents/{id}/ask: a question and how many chunks to retrieve for it. */
export const askSchema = z.object({
  question: queryText("question"),
  top_k: searchSchema.shape.top_k,
  filter: searchSchema.shape.filter,
});
