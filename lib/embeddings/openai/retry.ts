import { APIConnectionError, APIError, APIUserAbortError } from "openai";

/** When and how long the OpenAI provider waits before sending a failed request again. */
export interface RetryPolicy {
  /** Retries after the first attempt, per request. */
  maxRetries: number;
  /** First backoff delay; doubles on each retry, with jitter. */
  retryBaseMs: number;
  /** Upper bound for any single wait, including a server's retry-after. */
  maxRetryDelayMs: number;
  sleep: (ms: number) => Promise<void>;
}

/** The policy from the embedder's options, with their defaults for what is not given. */
export function retryPolicy(opts: Partial<RetryPolicy>): RetryPolicy {
  return {
    maxRetries: nonNegative(opts.maxRetries, 4),
    retryBaseMs: nonNegative(opts.retryBaseMs, 500),
    maxRetryDelayMs: nonNegative(opts.maxRetryDelayMs, 60_000),
    sleep: opts.sleep ?? sleep,
  };
}

/**
 * Sends until it succeeds, retrying 408/409/429/5xx and connection errors/timeouts (but not 429
 * `insufficient_quota`: waiting does not add credit). The last failure is thrown as
 * `fail(err, retries)`.
 */
export async function withRetries<T>(
  send: () => Promise<T>,
  policy: RetryPolicy,
  fail: (err: unknown, retries: number) => Error,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= policy.maxRetries || !isRetryable(err)) throw fail(err, attempt);
      await policy.sleep(retryDelayMs(err, attempt, policy));
    }
  }
}

function retryDelayMs(err: unknown, attempt: number, policy: RetryPolicy): number {
  const fromHeader = err instanceof APIError ? retryAfterMs(err.headers) : undefined;
  if (fromHeader !== undefined) return Math.min(fromHeader, policy.maxRetryDelayMs);
  const exp = policy.retryBaseMs * 2 ** attempt;
  // "Equal jitter": half fixed, half random, so parallel clients spread out.
  return Math.min(exp / 2 + Math.random() * (exp / 2), policy.maxRetryDelayMs);
}

function isRetryable(err: unknown): boolean {
  if (err instanceof APIUserAbortError) return false;
  if (err instanceof APIConnectionError) return true; // includes timeouts
  if (err instanceof APIError && typeof err.status === "number") {
    if (err.status === 429) return err.code !== "insufficient_quota";
    return err.status === 408 || err.status === 409 || err.status >= 500;
  }
  return false;
}

/** `retry-after-ms` (OpenAI) or `retry-after` (seconds or HTTP date), in ms; undefined if absent/invalid. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
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

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
