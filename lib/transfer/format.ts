import { z } from "zod";
import { RERANKERS } from "../core/rerankers";
import { readableMetadata } from "../core/metadata";
import { RETRIEVAL_MODES, TOOLS } from "../validations/agent";
import { NO_DOCUMENT, PAIR_SOURCES, PAIR_STATUSES, pairFields } from "../validations/pair";
import { sanitizeDocumentPath } from "../validations/filename";
import { CHUNK_STRATEGIES } from "../core/chunking";
import { MAX_CHUNKS_PER_DOCUMENT } from "../db/keyword-index";
import { MAX_CHUNK_QUESTIONS, MAX_CHUNK_TEXT } from "../validations/curation";
import { MAX_QUERY_LENGTH } from "../validations/search";

/**
 * An agent file (GET /api/agents/{id}/export, POST /api/agents/import): NDJSON, one object per
 * line, in this order: the agent line; per ready document its document line, then (when it
 * carries vectors) vectors lines covering its chunks in order; the pair lines; the run lines;
 * the end line, whose sha256 covers the bytes of every line before it, newlines included.
 */
export const AGENT_FILE_FORMAT = "kb-inspector-agent";
export const AGENT_FILE_VERSION = 1;
export const AGENT_FILE_TYPE = "application/x-ndjson";
/** The longest line an import reads; one vectors line holds at most VECTORS_PER_LINE chunks (about 1 MB at 3,072 dimensions). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
export const VECTORS_PER_LINE = 64;

const count = z.number().int().min(0);
const timestamp = z.string().min(1);
const percent = z.number().min(0).max(100);
const countsSchema = z.object({ documents: count, chunks: count, pairs: count, runs: count });
export type TransferCounts = z.infer<typeof countsSchema>;

export const agentLineSchema = z.object({
  type: z.literal("agent"),
  format: z.string(),
  version: z.number(),
  exported_at: timestamp,
  agent: z.object({
    name: z.string().trim().min(1).max(80),
    tools: z.array(z.enum(TOOLS)),
    retrieval_mode: z.enum(RETRIEVAL_MODES),
    max_distance: z.number().positive().nullable(),
    max_distance_model: z.string().nullable(),
    log_questions: z.boolean(),
    created_at: timestamp,
  }),
  /** The exporting instance's model: vectors are used as they are only by an instance of the same model and dimension. */
  embedding_model: z.string().min(1),
  dimension: z.number().int().positive(),
  /** What the export set out to write; the end line counts what it wrote. */
  counts: countsSchema,
});

export const documentLineSchema = z.object({
  type: z.literal("document"),
  document: z.object({
    filename: z.string().min(1),
    type: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: count,
    chunk_size: z.number().int().positive(),
    chunk_overlap: count,
    chunk_strategy: z.enum(CHUNK_STRATEGIES),
    embedding_model: z.string().min(1),
    source_url: z.string().nullable(),
    created_at: timestamp,
    text: z.string(),
    /** The document's own metadata keys (files of earlier versions have none); keys a filter cannot use are left out. */
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .transform((m) => readableMetadata(m ?? {})),
    /** What OCR read of it (lib/extract/ocr-record.ts); files of earlier versions have none. */
    ocr: z
      .union([
        z.object({ image: z.object({ confidence: percent }) }),
        z.object({ pages: z.array(z.object({ page: z.number().int().positive(), confidence: percent })).min(1) }),
      ])
      .nullable()
      .optional(),
    /** A PDF's page starts in the text (lib/core/pages.ts); files of earlier versions have none. */
    page_starts: z.array(count).min(1).nullable().optional(),
  }),
  /**
   * Character offsets into the text, end exclusive; a chunk's text is text.slice(start, end). `context`:
   * the header of the table whose rows it holds without it (lib/core/tables.ts); files of earlier versions have none.
   */
  chunks: z.array(z.object({ index: count, start: count, end: count, context: z.string().min(1).max(MAX_CHUNK_TEXT).optional() })),
  /** True: vectors lines covering every chunk in order follow this line. */
  vectors: z.boolean(),
  /**
   * A curated document (lib/ingest/curate.ts): all its chunks in order, on and off, edited or
   * written by hand, with their questions; `chunks` is empty and no vectors follow (the importer
   * embeds them). Checked as the curation API checks a change.
   */
  curation: z
    .object({
      enabled: z.boolean(),
      removed: z.array(z.string().max(MAX_CHUNK_TEXT)).max(MAX_CHUNKS_PER_DOCUMENT),
      chunks: z
        .array(
          z.object({
            start: count,
            end: count,
            text: z.string().trim().min(1).max(MAX_CHUNK_TEXT),
            questions: z.array(z.string().trim().min(1).max(MAX_QUERY_LENGTH)).max(MAX_CHUNK_QUESTIONS),
            original: z.string().max(MAX_CHUNK_TEXT).nullable(),
            enabled: z.boolean(),
            context: z.string().min(1).max(MAX_CHUNK_TEXT).optional(),
          }),
        )
        .min(1)
        .max(MAX_CHUNKS_PER_DOCUMENT - 1),
    })
    .optional(),
});

export const vectorsLineSchema = z.object({
  type: z.literal("vectors"),
  first_chunk: count,
  count: z.number().int().positive(),
  dimension: z.number().int().positive(),
  /** Base64 of count × dimension little-endian float32 values, as chunk_vectors stores them. */
  data: z.string(),
});

/** A document's name as uploads store it, or NO_DOCUMENT (an unanswerable pair). */
const expectedFilename = z
  .string()
  .refine((v) => v === NO_DOCUMENT || sanitizeDocumentPath(v) === v, "not a document name this app stores");

// Query and note as the pairs API takes them (trimmed, within its caps).
export const pairLineSchema = z.object({
  type: z.literal("pair"),
  query: pairFields.shape.query,
  expected_filename: expectedFilename,
  note: pairFields.shape.note,
  source: z.enum(PAIR_SOURCES),
  status: z.enum(PAIR_STATUSES),
  created_at: timestamp,
});

const nullableNumber = z.number().nullable();
export const runLineSchema = z.object({
  type: z.literal("run"),
  k: z.number().int().positive(),
  status: z.enum(["done", "failed"]),
  error: z.string().nullable(),
  done_pairs: count,
  n_pairs: count,
  embedding_model: z.string(),
  query_weighting: z.string().nullable(),
  document_count: count,
  chunk_count: count,
  chunk_settings: z.array(
    z.object({
      chunk_size: z.number().int(),
      chunk_overlap: z.number().int(),
      chunk_strategy: z.enum(CHUNK_STRATEGIES).optional(),
      documents: count,
    }),
  ),
  max_distance: nullableNumber,
  retrieval_mode: z.enum(RETRIEVAL_MODES),
  pair_source: z.enum(PAIR_SOURCES).nullable(),
  /** Absent in files written before the rerank stage: those runs ranked without one. */
  reranker: z.enum(RERANKERS).default("none"),
  reranker_version: z.string().nullable().default(null),
  recall_at_k: z.record(z.string(), nullableNumber).nullable(),
  mrr: nullableNumber,
  created_at: timestamp,
  finished_at: z.string().nullable(),
  /** Per pair, by query and expected filename: ids of the other instance mean nothing here. */
  results: z.array(
    z.object({
      query: pairFields.shape.query,
      expected: expectedFilename,
      rank: z.number().int().nullable(),
      best_distance: nullableNumber,
      top_distance: nullableNumber,
      missing: z.boolean(),
      beyond_cut: z.boolean(),
      answerable: z.boolean(),
    }),
  ),
});

export const endLineSchema = z.object({
  type: z.literal("end"),
  counts: countsSchema,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export type AgentLine = z.infer<typeof agentLineSchema>;
export type DocumentLine = z.infer<typeof documentLineSchema>;
export type VectorsLine = z.infer<typeof vectorsLineSchema>;
export type PairLine = z.infer<typeof pairLineSchema>;
export type RunLine = z.infer<typeof runLineSchema>;
export type EndLine = z.infer<typeof endLineSchema>;

/** The lines that may follow a document's vectors, in file order. */
export const SECTION_ORDER = ["document", "pair", "run", "end"] as const;
