import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { EmbeddingError, type Embedder } from "../types";
import {
  connectionReason,
  DEFAULT_OPENAI_BASE_URL,
  describeServer,
  estimateTokens,
  isRetryable,
  makeBatches,
  MAX_TOKENS_PER_INPUT,
  nonNegative,
  retryAfterMs,
  sleep,
  truncateToTokens,
  unitVector,
} from "./support";

export {
  DEFAULT_OPENAI_BASE_URL,
  estimateTokens,
  MAX_INPUT_CHARS,
  MAX_INPUTS_PER_REQUEST,
  MAX_TOKENS_PER_INPUT,
  MAX_TOKENS_PER_REQUEST,
  truncateToTokens,
} from "./support";

/**
 * Embeddings through the OpenAI API or any OpenAI-compatible server (`baseURL`).
 *
 * - Retries are done here, not by the SDK (`maxRetries: 0`): 408/409/429/5xx and connection
 *   errors/timeouts are retried with exponential backoff + jitter, honouring `retry-after-ms` /
 *   `retry-after`. 429 `insufficient_quota` is not retried (waiting does not add credit).
 * - Inputs are batched within API limits (2,048 inputs and ~300,000 tokens per request) and
 *   sent sequentially; output order follows the response's `index` field.
 * - Inputs longer than ~8,000 estimated tokens (24,000 ASCII chars) are truncated, because the
 *   API rejects the whole request when one input exceeds the model's 8,191-token limit.
 * - Empty/whitespace-only inputs are not sent (the API rejects empty strings); they get a fixed
 *   unit vector (1 at index 0) because a zero vector breaks cosine distance in Chroma.
 * - Dimension: known for OpenAI's models. For other models, pass `dimension`, or call
 *   `await embedder.init()` once, which asks the server with a one-input probe. The first
 *   successful `embed()` also learns it. Reading `dimension` while unknown throws.
 * - Every failure is thrown as one EmbeddingError (provider "openai") with an actionable
 *   message. Messages never contain the API key (server-provided text is redacted).
 */

export const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};
/** Models that accept the `dimensions` request parameter (shortened embeddings). */
const MODELS_WITH_DIMENSIONS_PARAM = new Set(["text-embedding-3-small", "text-embedding-3-large"]);

const PROVIDER = "openai";

export interface OpenAIEmbedderOptions {
  apiKey: string;
  /** OpenAI-compatible server, e.g. http://localhost:11434/v1. Default: the OpenAI API
   *  (the OPENAI_BASE_URL environment variable is deliberately NOT read here). */
  baseURL?: string;
  model: string;
  /**
   * Vector dimension. Optional for OpenAI's models. For text-embedding-3-* a smaller value is
   * sent as the `dimensions` parameter (shortened embeddings). For other models it is the
   * dimension the server is expected to return (checked on every response).
   */
  dimension?: number;
  /** Retries after the first attempt, per request. Default 4. */
  maxRetries?: number;
  /** First backoff delay; doubles on each retry, with jitter. Default 500 ms. */
  retryBaseMs?: number;
  /** Upper bound for any single wait, including a server's retry-after. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Per-request timeout. Default 120 s. */
  timeoutMs?: number;
  /**
   * Wire format asked of the server. Default: "base64" for the OpenAI API (smaller, faster),
   * "float" when `baseURL` is set (some compatible servers ignore or reject base64).
   * Either way, both formats are accepted in the response.
   */
  encodingFormat?: "float" | "base64";
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Waits between retries. Default: a timer; tests pass one that records the delays. */
  sleep?: (ms: number) => Promise<void>;
}

export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  private knownDimension: number | undefined;
  /** Sent as `dimensions` (text-embedding-3-* shortened vectors only). */
  private readonly requestDimensions: number | undefined;
  private readonly client: OpenAI;
  private readonly apiKey: string;
  private readonly label: string;
  private readonly official: boolean;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly encodingFormat: "float" | "base64";
  private readonly sleep: (ms: number) => Promise<void>;
  private initPromise: Promise<void> | undefined;

  constructor(opts: OpenAIEmbedderOptions) {
    const apiKey = opts.apiKey?.trim() ?? "";
    const baseURL = (opts.baseURL?.trim() || DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, "");
    this.label = describeServer(baseURL);
    this.official = baseURL === DEFAULT_OPENAI_BASE_URL;
    if (!apiKey) {
      throw new EmbeddingError(`${this.label}: no API key was given. Set OPENAI_API_KEY.`, PROVIDER);
    }
    const model = opts.model?.trim() ?? "";
    if (!model) throw new EmbeddingError(`${this.label}: no embedding model name was given.`, PROVIDER);
    this.model = model;
    this.apiKey = apiKey;

    const native = KNOWN_DIMENSIONS[model];
    if (opts.dimension !== undefined) {
      if (!Number.isInteger(opts.dimension) || opts.dimension <= 0) {
        throw new EmbeddingError(`${this.label}: dimension must be a positive integer, got ${opts.dimension}.`, PROVIDER);
      }
      if (native !== undefined && opts.dimension !== native) {
        if (!MODELS_WITH_DIMENSIONS_PARAM.has(model) || opts.dimension > native) {
          throw new EmbeddingError(
            `${this.label}: model "${model}" produces ${native}-dimensional vectors` +
              (MODELS_WITH_DIMENSIONS_PARAM.has(model) ? ` (or fewer via shortening)` : ``) +
              `; dimension ${opts.dimension} is not possible.`,
            PROVIDER,
          );
        }
        this.requestDimensions = opts.dimension;
      }
    }
    this.knownDimension = opts.dimension ?? native;

    this.maxRetries = nonNegative(opts.maxRetries, 4);
    this.retryBaseMs = nonNegative(opts.retryBaseMs, 500);
    this.maxRetryDelayMs = nonNegative(opts.maxRetryDelayMs, 60_000);
    this.encodingFormat = opts.encodingFormat ?? (this.official ? "base64" : "float");
    this.sleep = opts.sleep ?? sleep;
    this.client = new OpenAI({
      apiKey,
      baseURL,
      maxRetries: 0,
      timeout: opts.timeoutMs ?? 120_000,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  /** The vector dimension. Throws if it is not known yet (unknown model, no `dimension`, no init()). */
  get dimension(): number {
    if (this.knownDimension === undefined) {
      throw new EmbeddingError(
        `${this.label}: the vector dimension of model "${this.model}" is not known yet. ` +
          `Configure the dimension, or call \`await embedder.init()\` before reading it.`,
        PROVIDER,
      );
    }
    return this.knownDimension;
  }

  /** True once `dimension` can be read without throwing. */
  get hasDimension(): boolean {
    return this.knownDimension !== undefined;
  }

  /**
   * Makes `dimension` available. No network call when it is already known (OpenAI model or
   * `dimension` given); otherwise embeds one short probe text and uses its length.
   * Safe to call many times; concurrent calls share one probe; a failed probe can be retried.
   */
  async init(): Promise<this> {
    if (this.knownDimension === undefined) {
      this.initPromise ??= this.embed(["dimension probe"]).then(
        () => undefined,
        (err: unknown) => {
          this.initPromise = undefined;
          throw err;
        },
      );
      await this.initPromise;
    }
    return this;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const out: number[][] = new Array(texts.length);
    const toSend: { text: string; tokens: number; at: number }[] = [];
    const blanks: number[] = [];
    texts.forEach((text, at) => {
      if (typeof text !== "string" || text.trim() === "") {
        blanks.push(at);
        return;
      }
      const truncated = truncateToTokens(text, MAX_TOKENS_PER_INPUT);
      toSend.push({ text: truncated, tokens: estimateTokens(truncated), at });
    });

    for (const batch of makeBatches(toSend)) {
      const vectors = await this.embedBatch(batch.map((b) => b.text));
      batch.forEach((b, i) => (out[b.at] = vectors[i]));
    }

    if (blanks.length > 0) {
      if (this.knownDimension === undefined) await this.init();
      // Fixed unit vector: a zero vector has no cosine distance (Chroma would return NaN).
      for (const at of blanks) out[at] = unitVector(this.knownDimension!);
    }
    return out;
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    const response = await this.requestWithRetries(input);
    return this.parseResponse(response, input.length);
  }

  private async requestWithRetries(input: string[]): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        // An explicit encoding_format makes the SDK return the body untouched (it would
        // otherwise ask for base64 and decode it blindly); parseResponse handles both forms.
        return await this.client.embeddings.create({
          model: this.model,
          input,
          encoding_format: this.encodingFormat,
          ...(this.requestDimensions !== undefined ? { dimensions: this.requestDimensions } : {}),
        });
      } catch (err) {
        if (attempt >= this.maxRetries || !isRetryable(err)) throw this.toEmbeddingError(err, attempt);
        await this.sleep(this.retryDelayMs(err, attempt));
      }
    }
  }

  private retryDelayMs(err: unknown, attempt: number): number {
    const fromHeader = err instanceof APIError ? retryAfterMs(err.headers) : undefined;
    if (fromHeader !== undefined) return Math.min(fromHeader, this.maxRetryDelayMs);
    const exp = this.retryBaseMs * 2 ** attempt;
    // "Equal jitter": half fixed, half random, so parallel clients spread out.
    return Math.min(exp / 2 + Math.random() * (exp / 2), this.maxRetryDelayMs);
  }

  private parseResponse(response: unknown, expected: number): number[][] {
    const data = (response as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) {
      throw this.malformed(`no "data" array in the response`);
    }
    if (data.length !== expected) {
      throw this.malformed(`it returned ${data.length} vectors for ${expected} inputs`);
    }
    const out: number[][] = new Array(expected);
    data.forEach((item: unknown, position) => {
      const rawIndex = (item as { index?: unknown } | null)?.index;
      // The spec always sends `index`; tolerate servers that omit it (then array order counts).
      const index = rawIndex === undefined ? position : rawIndex;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected) {
        throw this.malformed(`invalid index ${JSON.stringify(index)}`);
      }
      if (out[index] !== undefined) throw this.malformed(`index ${index} appears twice`);
      out[index] = this.toVector((item as { embedding?: unknown }).embedding, index);
    });
    return out;
  }

  private toVector(embedding: unknown, index: number): number[] {
    let vector: number[];
    if (typeof embedding === "string") {
      const bytes = Buffer.from(embedding, "base64");
      if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) {
        throw this.malformed(`embedding ${index} is not valid base64 float32 data`);
      }
      // Copy to an aligned buffer: Float32Array needs a byte offset that is a multiple of 4.
      const aligned = new Uint8Array(bytes.byteLength);
      aligned.set(bytes);
      vector = Array.from(new Float32Array(aligned.buffer));
    } else if (Array.isArray(embedding)) {
      vector = embedding as number[];
    } else {
      throw this.malformed(`embedding ${index} is neither a number array nor base64`);
    }
    let norm = 0;
    for (const x of vector) {
      if (typeof x !== "number" || !Number.isFinite(x)) {
        throw this.malformed(`embedding ${index} contains a non-numeric value`);
      }
      norm += x * x;
    }
    if (norm === 0) throw this.malformed(`embedding ${index} is an all-zero vector`);

    if (this.knownDimension === undefined) {
      this.knownDimension = vector.length; // learnt from the server, then enforced
    } else if (vector.length !== this.knownDimension) {
      throw new EmbeddingError(
        `${this.label}: model "${this.model}" returned ${vector.length}-dimensional vectors, but ` +
          `${this.knownDimension} were expected. Check the configured model and dimension ` +
          `(vectors of different sizes cannot share one index).`,
        PROVIDER,
      );
    }
    return vector;
  }

  private malformed(detail: string): EmbeddingError {
    return new EmbeddingError(`${this.label}: the server returned a malformed response: ${detail}.`, PROVIDER);
  }

  private toEmbeddingError(err: unknown, retries: number): EmbeddingError {
    const label = this.label;
    const after = retries > 0 ? ` after ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
    if (err instanceof EmbeddingError) return err;
    if (err instanceof APIUserAbortError) {
      return new EmbeddingError(`${label}: the request was aborted.`, PROVIDER);
    }
    if (err instanceof APIConnectionTimeoutError) {
      return new EmbeddingError(`${label}: the request timed out${after}. The server may be overloaded; try again later.`, PROVIDER, undefined, { cause: err.cause });
    }
    if (err instanceof APIConnectionError) {
      const why = connectionReason(err);
      return new EmbeddingError(
        `${label}: could not connect${why ? ` (${why})` : ""}${after}. Check the network and the base URL.`,
        PROVIDER,
        undefined,
        { cause: err.cause },
      );
    }
    if (err instanceof APIError && typeof err.status === "number") {
      // No `cause`: the SDK error carries the raw response body, which a server may echo the key in.
      const status = err.status;
      const detail = this.serverDetail(err);
      const said = detail ? ` Server said: ${detail}` : "";
      let message: string;
      if (status === 401) {
        message = `the API key was rejected (401). Check OPENAI_API_KEY.`;
      } else if (status === 403) {
        message = `access was denied (403): the API key has no permission for model "${this.model}" (or this organisation/region is not allowed).${said}`;
      } else if (status === 404) {
        message = `model "${this.model}" was not found (404). Check the configured model name` +
          (this.official ? "." : " and that the base URL ends with /v1.") + said;
      } else if (status === 429 && err.code === "insufficient_quota") {
        message = `the account has run out of quota (429 insufficient_quota). Check the plan and billing of this API key.`;
      } else if (status === 429) {
        message = `rate limit exceeded (429)${after}. Wait a minute and try again, or embed fewer documents at once.${said}`;
      } else if (status >= 500) {
        message = `the server failed (${status})${after}. Try again later.${said}`;
      } else if (status === 400 && /context length|maximum.*tokens|too long|token limit/i.test(detail)) {
        message = `an input is too long for model "${this.model}" (400). Use smaller chunks.${said}`;
      } else {
        message = `the request was rejected (${status}).${said}`;
      }
      return new EmbeddingError(`${label}: ${message}`, PROVIDER, status);
    }
    const text = err instanceof Error ? err.message : String(err);
    return new EmbeddingError(`${label}: unexpected error: ${this.redact(text)}`, PROVIDER);
  }

  /** The server's own error text, redacted and shortened. */
  private serverDetail(err: APIError): string {
    const body = err.error as { message?: unknown } | undefined;
    let text = typeof body?.message === "string" ? body.message : err.message.replace(/^\d{3}\s*/, "");
    if (/^status code \(no body\)$/.test(text)) text = "";
    text = this.redact(text).replace(/\s+/g, " ").trim();
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  }

  private redact(text: string): string {
    return text.split(this.apiKey).join("[redacted]").replace(/\bsk-[A-Za-z0-9_*\-.]{4,}/g, "sk-[redacted]");
  }
}
