// The app's configuration, parsed once with zod. Plain ESM so the launcher
// (scripts/start.mjs) checks it before starting anything.
import path from "node:path";
import { z } from "zod";

const port = z.coerce.number().int().min(1).max(65535);
const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

const schema = z
  .object({
    PORT: port.default(3000),
    DATA_DIR: z.string().min(1).default("./data"),
    CHROMA_URL: z.url().optional(),
    CHROMA_PORT: port.optional(),
    CHROMA_TENANT: z.string().min(1).optional(),
    CHROMA_DATABASE: z.string().min(1).optional(),
    CHROMA_COLLECTION_PREFIX: z
      .string()
      .regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,40}$/, "letters, digits, _ and - only")
      .default("kb"),
    EMBEDDING_PROVIDER: z.enum(["local", "openai"]).default("local"),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    OPENAI_EMBEDDING_MODEL: z.string().min(1).default("text-embedding-3-small"),
    OPENAI_EMBEDDING_DIMENSION: z.coerce.number().int().positive().optional(),
    /** A chat model on the same OpenAI-compatible endpoint: grades and answers in the ask pipeline. Unset: the cut grades, answers are extractive. */
    OPENAI_CHAT_MODEL: z.string().min(1).optional(),
    OPENAI_CHAT_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    /** A reranking endpoint for the `http` reranker: requests go to `{RERANK_BASE_URL}/rerank`. Unset: that reranker is off. */
    RERANK_BASE_URL: z.url().optional(),
    RERANK_API_KEY: z.string().min(1).optional(),
    /** Sent as the request's `model` (Cohere and Jina need one; a TEI server serves only its own). */
    RERANK_MODEL: z.string().min(1).optional(),
    /** The endpoint's request and answer shape: `cohere` (Cohere's and Jina's) or `tei` (text-embeddings-inference). */
    RERANK_PROTOCOL: z.enum(["cohere", "tei"]).default("cohere"),
    RERANK_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    /** The `chat` reranker's bound on cost: the chat model judges this many of a pool's first candidates, in one call; the rest keep their order below them. */
    RERANK_CHAT_MAX_CANDIDATES: z.coerce.number().int().positive().max(50).default(20),
    /** Each candidate's text is cut to this many characters before the chat model reads it. */
    RERANK_CHAT_MAX_CHARS: z.coerce.number().int().positive().default(600),
    MAX_UPLOAD_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(20 * 1024 * 1024),
    KB_DEMO: flag.default(true),
    // Access (see docs/operations.md, "Access"): the address the app listens on, and the password that
    // turns on sign-in. A non-loopback HOST without ADMIN_PASSWORD refuses to start.
    HOST: z.string().min(1).default("127.0.0.1"),
    ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
    /** Comma-separated origins (scheme://host[:port]) allowed besides the app's own. */
    ALLOWED_ORIGINS: z.string().optional(),
    /** Comma-separated Host header values accepted besides loopback names and HOST. */
    ALLOWED_HOSTS: z.string().optional(),
    /** Signs in with the viewer role (read, search, inspect, run evaluations); needs ADMIN_PASSWORD. */
    VIEWER_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
    /**
     * The app runs behind a reverse proxy that sets X-Forwarded-For: the client's address (for
     * sign-in throttling) is then that header's last entry, not the socket's. Unset, a client
     * cannot choose the address it is counted under.
     */
    TRUST_PROXY: flag.default(false),
    /** How long a sign-in lasts; fractions of an hour are fine. */
    SESSION_MAX_AGE_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 366)
      .default(12),
    // Resource limits: every one is a clear 413/422 naming the limit, never a stalled server.
    MAX_TEXT_CHARS: z.coerce.number().int().positive().default(5_000_000),
    MAX_PDF_PAGES: z.coerce.number().int().positive().default(2_000),
    EXTRACT_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    // Reading images and scanned PDF pages by OCR (docs/ingesting.md, "Images and scanned pages").
    /** An image (or a PDF page rendered for OCR) of more pixels is refused from its header, before it is decoded. */
    MAX_IMAGE_PIXELS: z.coerce.number().int().positive().default(40_000_000),
    /** The languages OCR reads, as tesseract names them (`eng`, `eng+deu`); each needs the npm package `@tesseract.js-data/<lang>`. */
    OCR_LANGUAGES: z
      .string()
      .regex(/^[a-z][a-z_]*(\+[a-z][a-z_]*)*$/, "language codes joined by + (eng, eng+deu)")
      .default("eng"),
    /** Text OCR reads with a lower mean confidence (0-100) is taken for noise: an image or page giving only that has no text. */
    OCR_MIN_CONFIDENCE: z.coerce.number().min(0).max(100).default(40),
    /** Most pages of one PDF read by OCR (pages without a text layer); more is refused as `too_many_scanned_pages`. */
    OCR_MAX_PAGES: z.coerce.number().int().positive().default(50),
    MAX_FILES_PER_REQUEST: z.coerce.number().int().positive().default(50),
    MAX_REQUEST_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    /** Every Chroma call gives up after this long and answers 503 vector_store_unavailable. */
    CHROMA_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
    /** Tool-call history kept per agent: rows older than the days, or past the count, go. */
    TOOL_CALL_RETENTION_DAYS: z.coerce.number().positive().default(30),
    TOOL_CALL_MAX_PER_AGENT: z.coerce.number().int().positive().default(100_000),
    /** Finished evaluation runs kept per agent, the newest; older ones and their per-pair rows go when a run finishes. */
    EVAL_RUNS_KEEP: z.coerce.number().int().positive().default(200),
    /** Agents of up to this many chunks are ranked exactly, past Chroma's approximate index (0: never). */
    EXACT_MAX_CHUNKS: z.coerce.number().int().min(0).default(100_000),
    /** Memory for the vectors of exactly ranked agents, all together; an agent past it is read from SQLite on each search. */
    EXACT_MEMORY_MB: z.coerce.number().positive().default(512),
    /** The index-recall monitor warns when an agent's served recall@10 falls below this. */
    INDEX_RECALL_WARN: z.coerce.number().min(0).max(1).default(0.95),
    /** Wordings of the agent's questions within this cosine distance of a question's first wording join it (default: lib/questions/group-threshold.ts). */
    QUESTION_GROUP_DISTANCE: z.coerce.number().min(0).max(2).optional(),
    // Syncing pages from user-entered URLs (lib/fetch/guarded.ts): every request stays within these.
    /** Comma-separated hosts (`name` or `name:port`) fetched even though they resolve to a private, loopback or link-local address. */
    FETCH_ALLOW_HOSTS: z.string().default(""),
    FETCH_MAX_PAGE_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    /** Bounds one page's whole fetch: every redirect and the body. */
    FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
    FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).default(5),
    /** Most pages one sync reads. */
    FETCH_MAX_PAGES: z.coerce.number().int().positive().default(5_000),
    /** Most sitemap files (an index and the sitemaps it lists) one sync reads. */
    FETCH_MAX_SITEMAPS: z.coerce.number().int().positive().default(100),
    /** Most entries read from one sitemap file (the sitemap protocol's own limit by default). */
    FETCH_MAX_SITEMAP_URLS: z.coerce.number().int().positive().default(50_000),
    /** Pages fetched at once per sync. */
    FETCH_CONCURRENCY: z.coerce.number().int().positive().default(4),
    /** Most page requests per second per sync; 0: no limit. */
    FETCH_RATE_PER_S: z.coerce.number().min(0).default(10),
  })
  .superRefine((env, ctx) => {
    if (env.EMBEDDING_PROVIDER === "openai" && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["OPENAI_API_KEY"],
        message: "is required when EMBEDDING_PROVIDER=openai (or set OPENAI_BASE_URL for a server that needs no key)",
      });
    }
    if (env.VIEWER_PASSWORD && !env.ADMIN_PASSWORD) {
      ctx.addIssue({ code: "custom", path: ["VIEWER_PASSWORD"], message: "needs ADMIN_PASSWORD to be set too" });
    }
    if (env.VIEWER_PASSWORD && env.VIEWER_PASSWORD === env.ADMIN_PASSWORD) {
      ctx.addIssue({ code: "custom", path: ["VIEWER_PASSWORD"], message: "must differ from ADMIN_PASSWORD" });
    }
  });

/**
 * The most any request body may carry outside the upload routes (which check access before
 * they read a byte, and take MAX_REQUEST_BYTES): Next reads a server action's body, and the
 * proxy's copy of every body it sees, before the app can say who may send one. 1 MB holds any
 * form, query or setting with room to spare, and a pairs import of thousands of rows.
 */
export const SMALL_BODY_BYTES = 1024 * 1024;

export class ConfigError extends Error {}

/**
 * Parses a set of variables; throws ConfigError naming each bad variable.
 * @param {Record<string, string | undefined>} [source]
 */
export function parseEnv(source = process.env) {
  // Empty strings count as unset, as in most .env files.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const name = String(i.path[0] ?? "environment");
      // Secrets are never echoed into logs.
      const shown = name in cleaned && !/PASSWORD|KEY/.test(name) ? ` (got "${cleaned[name]}")` : "";
      return `  ${name}${shown}: ${i.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  return { ...env, DATA_DIR: path.resolve(env.DATA_DIR) };
}

let cached;
/** The configuration of this process, parsed on first use. */
export function env() {
  cached ??= parseEnv(process.env);
  return cached;
}
