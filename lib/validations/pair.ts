import { z } from "zod";
import { RETRIEVAL_MODES } from "./agent";
import { MAX_QUERY_LENGTH } from "./search";

export const MAX_IMPORT_ROWS = 10_000;
/**
 * The largest pairs file the page imports: a form's body may carry SMALL_BODY_BYTES (1 MB, see
 * lib/env.mjs), and the form's other fields need a little of it. About 10,000 short pairs.
 */
export const MAX_IMPORT_BYTES = 1024 * 1024 - 64 * 1024;
export const importTooLarge = (bytes: number) =>
  `The file has ${Math.round(bytes / 1024)} KB; the page imports at most ${MAX_IMPORT_BYTES / 1024} KB at a time: split it into several imports.`;

/** `expected` names the document by filename or by document id; ids are resolved to the filename. */
const expected = z.union([z.string(), z.number().int().positive()]).transform((v) => String(v).trim());

/** Where a pair came from: typed in, imported from a file, labeled from the agent's logged questions, or generated from a document. */
export const PAIR_SOURCES = ["manual", "import", "log", "generated"] as const;
export type PairSource = (typeof PAIR_SOURCES)[number];
export const PAIR_STATUSES = ["accepted", "proposed"] as const;
export type PairStatus = (typeof PAIR_STATUSES)[number];
export const pairSourceSchema = z.enum(PAIR_SOURCES, { error: `source must be one of: ${PAIR_SOURCES.join(", ")}.` });

/** An unanswerable pair is stored with this as its expected document. */
export const NO_DOCUMENT = "";

/** The fields without the check that `expected` matches `answerable` (zod cannot pick from a refined schema). */
export const pairFields = z.object({
  query: z
    .string({ error: "query is required." })
    .trim()
    .min(1, "The query is empty.")
    .max(MAX_QUERY_LENGTH, `The query is longer than ${MAX_QUERY_LENGTH} characters.`),
  expected: expected,
  /** false: a question the knowledge base should not answer (no expected document); the no-match cut is calibrated on these. */
  answerable: z.boolean({ error: "answerable must be true or false." }).default(true),
  note: z
    .string()
    .trim()
    .max(500, "The note is at most 500 characters.")
    .nullish()
    .transform((v) => v || null),
  /** The metadata filter its question is asked with (checked by parseFilter, lib/core/filter.ts); null clears it. */
  filter: z.unknown().optional(),
});

const expectedMatchesAnswerable = (p: { expected?: string; answerable?: boolean }, ctx: z.RefinementCtx) => {
  if (p.answerable === false && p.expected) {
    ctx.addIssue({ code: "custom", path: ["expected"], message: "An unanswerable pair has no expected document: leave it empty." });
  }
  if (p.answerable !== false && p.expected === "")
    ctx.addIssue({ code: "custom", path: ["expected"], message: "Choose the expected document." });
};

export const pairSchema = pairFields.superRefine(expectedMatchesAnswerable);
/**
 * An edit: `answerable: false` clears the expected document; an expected document makes it
 * answerable; `status: "accepted"` accepts a proposed pair (with the edits sent beside it).
 */
export const pairUpdateSchema = pairFields
  .partial()
  .extend({
    answerable: z.boolean({ error: "answerable must be true or false." }).optional(),
    status: z.enum(PAIR_STATUSES, { error: `status must be one of: ${PAIR_STATUSES.join(", ")}.` }).optional(),
  })
  .superRefine(expectedMatchesAnswerable);
export type PairInput = z.output<typeof pairSchema>;

/** One row of an import as sent: checked row by row, so one bad row never rejects the others. */
export const importRowSchema = z.looseObject({
  query: z.unknown().optional(),
  expected: z.unknown().optional(),
  answerable: z.unknown().optional(),
  note: z.unknown().optional(),
  filter: z.unknown().optional(),
});
export const importBodySchema = z
  .array(importRowSchema, { error: 'Send a JSON array of {"query", "expected"} objects.' })
  .max(MAX_IMPORT_ROWS, `At most ${MAX_IMPORT_ROWS} pairs per import.`);

export const MAX_K = 20;
export const evalRequestSchema = z.object({
  k: z
    .number({ error: `k must be an integer from 1 to ${MAX_K}.` })
    .int(`k must be an integer from 1 to ${MAX_K}.`)
    .min(1, `k must be an integer from 1 to ${MAX_K}.`)
    .max(MAX_K, `k must be an integer from 1 to ${MAX_K}.`)
    .default(3),
  /** The mode to rank in (default: the agent's); one run per mode compares them. */
  mode: z.enum(RETRIEVAL_MODES, { error: `mode must be one of: ${RETRIEVAL_MODES.join(", ")}.` }).optional(),
  /** Score only the accepted pairs of this source (default: all accepted pairs). */
  source: pairSourceSchema.optional(),
  /** `none`: rank without the agent's reranker (default: with it, when it has one). */
  reranker: z.enum(["agent", "none"], { error: "reranker must be agent or none." }).default("agent"),
  /** false: start the run and answer 202 with its id at once; the caller polls the run. */
  wait: z.boolean({ error: "wait must be true or false." }).default(true),
});
