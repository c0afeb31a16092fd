import { z } from "zod";

export const MAX_IMPORT_ROWS = 10_000;
export const MAX_QUERY_LENGTH = 2_000;

/** `expected` names the document by filename or by document id; ids are resolved to the filename. */
const expected = z.union([z.string(), z.number().int().positive()]).transform((v) => String(v).trim());

export const pairSchema = z.object({
  query: z
    .string({ error: "query is required." })
    .trim()
    .min(1, "The query is empty.")
    .max(MAX_QUERY_LENGTH, `The query is longer than ${MAX_QUERY_LENGTH} characters.`),
  expected: expected.pipe(z.string().min(1, "Choose the expected document.")),
  note: z
    .string()
    .trim()
    .max(500, "The note is at most 500 characters.")
    .nullish()
    .transform((v) => v || null),
});
export const pairUpdateSchema = pairSchema.partial();
export type PairInput = z.output<typeof pairSchema>;

/** One row of an import as sent: checked row by row, so one bad row never rejects the others. */
export const importRowSchema = z.looseObject({
  query: z.unknown().optional(),
  expected: z.unknown().optional(),
  note: z.unknown().optional(),
});
export const importBodySchema = z
  .array(importRowSchema, { error: "Send a JSON array of {\"query\", \"expected\"} objects." })
  .max(MAX_IMPORT_ROWS, `At most ${MAX_IMPORT_ROWS} pairs per import.`);

export const MAX_K = 20;
export const evalRequestSchema = z.object({
  k: z
    .number({ error: `k must be an integer from 1 to ${MAX_K}.` })
    .int(`k must be an integer from 1 to ${MAX_K}.`)
    .min(1, `k must be an integer from 1 to ${MAX_K}.`)
    .max(MAX_K, `k must be an integer from 1 to ${MAX_K}.`)
    .default(3),
  /** false: start the run and answer 202 with its id at once; the caller polls the run. */
  wait: z.boolean({ error: "wait must be true or false." }).default(true),
});
