import { z } from "zod";
import { MAX_QUERY_LENGTH } from "./search";

export const QUESTION_STATUS_FILTER = ["open", "labeled", "unanswerable", "gap", "ignored"] as const;

/** GET /api/agents/{id}/questions: `since` an ISO date or time, `status` one triage status, `q` words the question contains. */
export const questionListSchema = z.object({
  since: z
    .string()
    .trim()
    .refine((v) => !Number.isNaN(Date.parse(v)), "since must be a date or time, such as 2026-11-01 or 2026-11-01T09:00:00Z.")
    .transform((v) => new Date(v).toISOString())
    .nullish(),
  status: z.enum(QUESTION_STATUS_FILTER, { error: `status must be one of: ${QUESTION_STATUS_FILTER.join(", ")}.` }).nullish(),
  q: z.string().trim().max(MAX_QUERY_LENGTH).nullish(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/** One triage action on a question; `label` names the document that answers it (filename or id). */
export const triageSchema = z.discriminatedUnion(
  "action",
  [
    z.object({
      action: z.literal("label"),
      expected: z
        .union([z.string(), z.number().int().positive()], { error: "expected names the document that answers it (filename or id)." })
        .transform((v) => String(v).trim()),
      /** The wording to keep as the pair's query (default: the question's first wording). */
      query: z.string().trim().min(1).max(MAX_QUERY_LENGTH).optional(),
    }),
    z.object({ action: z.literal("unanswerable"), query: z.string().trim().min(1).max(MAX_QUERY_LENGTH).optional() }),
    z.object({ action: z.literal("gap") }),
    z.object({ action: z.literal("ignore") }),
    z.object({ action: z.literal("reopen") }),
  ],
  { error: "action must be one of: label, unanswerable, gap, ignore, reopen." },
);
export type TriageInput = z.output<typeof triageSchema>;

export const replaySchema = z
  .object({
    since: z
      .string()
      .refine((v) => !Number.isNaN(Date.parse(v)), "since must be a date or time.")
      .transform((v) => new Date(v).toISOString())
      .nullish(),
    limit: z
      .number({ error: "limit must be a number of questions." })
      .int()
      .min(1)
      .max(1000, "limit is at most 1000 questions.")
      .optional(),
    groups: z.array(z.number().int().positive(), { error: "groups must be a list of question ids." }).min(1).max(1000).optional(),
  })
  .refine((v) => !(v.groups && v.since), { message: "Give either groups or since, not both." });

export const gapsQuerySchema = z.object({
  beyond: z.coerce
    .number({ error: "beyond must be a distance." })
    .gt(0, "beyond must be greater than 0.")
    .max(2, "beyond is at most 2.")
    .optional(),
  format: z.enum(["json", "csv"], { error: 'format must be "json" or "csv".' }).optional(),
});

/** Sort orders of the coverage list: most retrieved first (the default), least first, by name, by last retrieval. */
export const COVERAGE_SORTS = ["-retrieved", "retrieved", "filename", "-last_at"] as const;

export const coverageQuerySchema = z.object({
  since: z.string().optional(),
  filter: z.string().optional(),
  document_id: z.coerce
    .number({ error: "document_id must be a document id." })
    .int("document_id must be a document id.")
    .positive()
    .optional(),
  never: z.enum(["true", "false"], { error: 'never must be "true" or "false".' }).optional(),
  sort: z.enum(COVERAGE_SORTS, { error: `sort must be one of ${COVERAGE_SORTS.join(", ")}.` }).optional(),
  limit: z.coerce
    .number({ error: "limit must be a number." })
    .int()
    .min(1, "limit is at least 1.")
    .max(200, "limit is at most 200.")
    .optional(),
  offset: z.coerce.number({ error: "offset must be a number." }).int().min(0, "offset is at least 0.").optional(),
});
