import { z } from "zod";
import { MAX_QUERY_LENGTH } from "./search";
import { MAX_K } from "./pair";

/** The longest text a chunk an editor writes may have (as a chunk size may be at most). */
export const MAX_CHUNK_TEXT = 100_000;
/** How many questions one chunk may answer. */
export const MAX_CHUNK_QUESTIONS = 20;

const chunkText = z
  .string({ error: "text must be a string." })
  .trim()
  .min(1, "text must not be empty.")
  .max(MAX_CHUNK_TEXT, `text must be at most ${MAX_CHUNK_TEXT.toLocaleString("en")} characters.`);

const questions = z
  .array(
    z
      .string({ error: "each question must be a string." })
      .trim()
      .min(1, "a question must not be empty.")
      .max(MAX_QUERY_LENGTH, `a question must be at most ${MAX_QUERY_LENGTH.toLocaleString("en")} characters.`),
    { error: "questions must be a list of strings." },
  )
  .max(MAX_CHUNK_QUESTIONS, `a chunk answers at most ${MAX_CHUNK_QUESTIONS} questions.`)
  // The same question twice adds nothing to either index.
  .transform((qs) => [...new Set(qs)]);

/** PATCH /api/agents/{id}/chunks/{chunkId}: any of its text, whether it is on, the questions it answers. */
export const chunkChangeSchema = z
  .strictObject(
    {
      text: chunkText.optional(),
      enabled: z.boolean({ error: "enabled must be true or false." }).optional(),
      questions: questions.optional(),
    },
    { error: (i) => (i.code === "unrecognized_keys" ? `Unknown field: ${i.keys.join(", ")}.` : "The body must be a JSON object.") },
  )
  .refine((c) => c.text !== undefined || c.enabled !== undefined || c.questions !== undefined, {
    message: "Give at least one of text, enabled or questions.",
  });

/** POST /api/agents/{id}/documents/{docId}/chunks: a chunk written by hand, after the chunk `after` (first when absent or null). */
export const newChunkSchema = z.strictObject(
  {
    text: chunkText,
    after: z.number({ error: "after must be a chunk id." }).int("after must be a chunk id.").nullish(),
    questions: questions.optional(),
  },
  { error: (i) => (i.code === "unrecognized_keys" ? `Unknown field: ${i.keys.join(", ")}.` : "The body must be a JSON object.") },
);

/** PATCH /api/agents/{id}/documents/{docId} with `enabled`: the whole document switched off or on. */
export const documentSwitchSchema = z.strictObject({ enabled: z.boolean({ error: "enabled must be true or false." }) });

export type ChunkChange = z.infer<typeof chunkChangeSchema>;
export type NewChunk = z.infer<typeof newChunkSchema>;

/** The most logged questions an impact may read. */
export const MAX_IMPACT_QUESTIONS = 5_000;

/** GET /api/agents/{id}/drafts/{draftId}/impact: the k of recall@k, and how many logged questions to read. */
export const impactQuerySchema = z.object({
  k: z.coerce
    .number({ error: `k must be an integer from 1 to ${MAX_K}.` })
    .int(`k must be an integer from 1 to ${MAX_K}.`)
    .min(1, `k must be an integer from 1 to ${MAX_K}.`)
    .max(MAX_K, `k must be an integer from 1 to ${MAX_K}.`)
    .default(3),
  questions: z.coerce
    .number({ error: `questions must be an integer from 0 to ${MAX_IMPACT_QUESTIONS}.` })
    .int(`questions must be an integer from 0 to ${MAX_IMPACT_QUESTIONS}.`)
    .min(0, `questions must be an integer from 0 to ${MAX_IMPACT_QUESTIONS}.`)
    .max(MAX_IMPACT_QUESTIONS, `questions must be an integer from 0 to ${MAX_IMPACT_QUESTIONS}.`)
    .default(1_000),
});
