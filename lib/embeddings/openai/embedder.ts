import OpenAI from "openai";
import { EmbeddingError, type Embedder } from "../types";
import { unitVector } from "../unit-vector";
import { estimateTokens, makeBatches, MAX_TOKENS_PER_INPUT, truncateToTokens } from "./batching";
import { ModelDimension } from "./dimensions";
import { describeServer, PROVIDER, toEmbeddingError, type ErrorContext } from "./errors";
import { parseEmbeddings } from "./response";
import { retryPolicy, withRetries, type RetryPolicy } from "./retry";

export {
  estimateTokens,
  MAX_INPUT_CHARS,
  MAX_INPUTS_PER_REQUEST,
  MAX_TOKENS_PER_INPUT,
  MAX_TOKENS_PER_REQUEST,
  truncateToTokens,
} from "./batching";
export { KNOWN_DIMENSIONS } from "./dimensions";

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

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

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
  private readonly dimensions: ModelDimension;
  private readonly client: OpenAI;
  private readonly errors: ErrorContext;
  private readonly retry: RetryPolicy;
  private readonly encodingFormat: "float" | "base64";
  private initPromise: Promise<void> | undefined;

  constructor(opts: OpenAIEmbedderOptions) {
    const apiKey = opts.apiKey?.trim() ?? "";
    const baseURL = (opts.baseURL?.trim() || DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, "");
    const official = baseURL === DEFAULT_OPENAI_BASE_URL;
    const label = describeServer(baseURL, official);
    if (!apiKey) {
      throw new EmbeddingError(`${label}: no API key was given. Set OPENAI_API_KEY.`, PROVIDER);
    }
    const model = opts.model?.trim() ?? "";
    if (!model) throw new EmbeddingError(`${label}: no embedding model name was given.`, PROVIDER);
    this.model = model;
    this.errors = { label, model, official, apiKey };
    this.dimensions = new ModelDimension(label, model, opts.dimension);
    this.retry = retryPolicy(opts);
    this.encodingFormat = opts.encodingFormat ?? (official ? "base64" : "float");
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
    return this.dimensions.value;
  }

  /** True once `dimension` can be read without throwing. */
  get hasDimension(): boolean {
    return this.dimensions.known !== undefined;
  }

  /**
   * Makes `dimension` available. No network call when it is already known (OpenAI model or
   * `dimension` given); otherwise embeds one short probe text and uses its length.
   * Safe to call many times; concurrent calls share one probe; a failed probe can be retried.
   */
  async init(): Promise<this> {
    if (this.dimensions.known === undefined) {
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
      if (this.dimensions.known === undefined) await this.init();
      for (const at of blanks) out[at] = unitVector(this.dimensions.known!);
    }
    return out;
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    const response = await withRetries(
      // An explicit encoding_format makes the SDK return the body untouched (it would
      // otherwise ask for base64 and decode it blindly); parseEmbeddings handles both forms.
      () =>
        this.client.embeddings.create({
          model: this.model,
          input,
          encoding_format: this.encodingFormat,
          ...(this.dimensions.requested !== undefined ? { dimensions: this.dimensions.requested } : {}),
        }),
      this.retry,
      (err, retries) => toEmbeddingError(err, retries, this.errors),
    );
    return parseEmbeddings(response, input.length, this.errors.label, (length) => this.dimensions.check(length));
  }
}
