import { z } from "zod";

/** Bounds of one call: each document is a chat call (or a read of its text), so a call stays within minutes. */
export const MAX_GENERATE_DOCUMENTS = 200;
export const MAX_PER_DOCUMENT = 20;
export const DEFAULT_PER_DOCUMENT = 5;

export const tooManyDocuments = (n: number) =>
  `${n} documents were chosen; questions are generated for at most ${MAX_GENERATE_DOCUMENTS} documents per call: choose fewer and generate again for the rest.`;

const perDocument = `per_document must be an integer from 1 to ${MAX_PER_DOCUMENT}.`;
const documentList = 'documents must be "all" or a list of document ids.';

/** POST /api/agents/{id}/pairs/generate, and the page's form: which documents, and how many questions each. */
export const generateSchema = z.object({
  documents: z
    .union([z.literal("all"), z.array(z.number().int().positive())], { error: documentList })
    .refine((d) => d === "all" || d.length > 0, "Choose at least one document.")
    .refine((d) => d === "all" || new Set(d).size <= MAX_GENERATE_DOCUMENTS, {
      error: (iss) => tooManyDocuments(new Set(iss.input as number[]).size),
    })
    .transform((d) => (d === "all" ? d : [...new Set(d)])),
  per_document: z
    .number({ error: perDocument })
    .int(perDocument)
    .min(1, perDocument)
    .max(MAX_PER_DOCUMENT, perDocument)
    .default(DEFAULT_PER_DOCUMENT),
});
export type GenerateInput = z.output<typeof generateSchema>;
