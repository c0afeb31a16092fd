import { APIConnectionError, APIError, APIUserAbortError } from "openai";

// Request limits, token estimates, retry rules and naming for the OpenAI provider.

export const MAX_INPUTS_PER_REQUEST = 2048;
export const MAX_TOKENS_PER_REQUEST = 300_000;
/** Per-input budget, a little under the 8,191-token model limit because tokens are estimated. */
export const MAX_TOKENS_PER_INPUT = 8_000;
/** = MAX_TOKENS_PER_INPUT for ASCII text (3 chars per token). */
export const MAX_INPUT_CHARS = 24_000;

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * Conservative token estimate without a tokenizer: ASCII ≈ 3 chars per token (English BPE
 * averages ~4), and every non-ASCII UTF-16 unit counts 1.5 tokens (CJK is ~1–1.3 per char, and
 * emoji/rare characters take several byte-level tokens).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3 + other * 1.5);
}

/** Cuts text to at most `maxTokens` estimated tokens (24,000 ASCII chars for 8,000), never inside a surrogate pair. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (text.length <= maxTokens * 3 && estimateTokens(text) <= maxTokens) return text;
  let cost = 0; // in thirds of a token
  const budget = maxTokens * 3;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const step = c < 0x80 ? 1 : 4.5;
    if (cost + step > budget) break;
    cost += step;
  }
  // Don't leave a lone high surrogate at the end.
  if (i > 0 && i < text.length) {
    const last = text.charCodeAt(i - 1);
    if (last >= 0xd800 && last <= 0xdbff) i--;
  }
  return text.slice(0, i);
}

export function* makeBatches<T extends { tokens: number }>(items: T[]): Generator<T[]> {
  let batch: T[] = [];
  let tokens = 0;
  for (const item of items) {
    if (batch.length > 0 && (batch.length >= MAX_INPUTS_PER_REQUEST || tokens + item.tokens > MAX_TOKENS_PER_REQUEST)) {
      yield batch;
      batch = [];
      tokens = 0;
    }
    batch.push(item);
    tokens += item.tokens;
  }
  if (batch.length > 0) yield batch;
}

export function isRetryable(err: unknown): boolean {
  if (err instanceof APIUserAbortError) return false;
  if (err instanceof APIConnectionError) return true; // includes timeouts
  if (err instanceof APIError && typeof err.status === "number") {
    if (err.status === 429) return err.code !== "insufficient_quota";
    return err.status === 408 || err.status === 409 || err.status >= 500;
  }
  return false;
}

/** `retry-after-ms` (OpenAI) or `retry-after` (seconds or HTTP date), in ms; undefined if absent/invalid. */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function connectionReason(err: APIConnectionError): string {
  // fetch wraps the socket error: TypeError("fetch failed", { cause: Error{ code: "ECONNREFUSED" } })
  let cause: unknown = err.cause;
  for (let depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return "";
}

/** "OpenAI embeddings" or "OpenAI-compatible embeddings at http://host:port/v1" (no credentials in the URL). */
export function describeServer(baseURL: string): string {
  if (baseURL === DEFAULT_OPENAI_BASE_URL) return "OpenAI embeddings";
  try {
    const url = new URL(baseURL);
    return `OpenAI-compatible embeddings at ${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "OpenAI-compatible embeddings";
  }
}

export function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

export function unitVector(dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  v[0] = 1;
  return v;
}

export function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
