import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { EmbeddingError } from "../types";
import { redactSecrets } from "../../core/redact";

// Every failure of the OpenAI provider becomes one EmbeddingError with an actionable message that
// names the server and never contains the API key (server-provided text is redacted).

export const PROVIDER = "openai";

/** What error messages name, and the key they must never show. */
export interface ErrorContext {
  /** The server, as describeServer names it. */
  label: string;
  model: string;
  /** The OpenAI API itself, not a compatible server. */
  official: boolean;
  apiKey: string;
}

/** A server's URL as users may read it: scheme, host, port and path; never a user, password or query. */
export function shownUrl(baseURL: string): string | null {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return null;
  }
}

/** "OpenAI embeddings" or "OpenAI-compatible embeddings at http://host:port/v1" (no credentials in the URL). */
export function describeServer(baseURL: string, official: boolean): string {
  if (official) return "OpenAI embeddings";
  const url = shownUrl(baseURL);
  return url ? `OpenAI-compatible embeddings at ${url}` : "OpenAI-compatible embeddings";
}

/** The error to throw for a request that failed after `retries` retries. */
export function toEmbeddingError(err: unknown, retries: number, ctx: ErrorContext): EmbeddingError {
  const { label, model } = ctx;
  const after = retries > 0 ? ` after ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
  if (err instanceof EmbeddingError) return err;
  if (err instanceof APIUserAbortError) {
    return new EmbeddingError(`${label}: the request was aborted.`, PROVIDER);
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new EmbeddingError(
      `${label}: the request timed out${after}. The server may be overloaded; try again later.`,
      PROVIDER,
      undefined,
      { cause: err.cause },
    );
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
    const detail = serverDetail(err, ctx.apiKey);
    const said = detail ? ` Server said: ${detail}` : "";
    let message: string;
    if (status === 401) {
      message = `the API key was rejected (401). Check OPENAI_API_KEY.`;
    } else if (status === 403) {
      message = `access was denied (403): the API key has no permission for model "${model}" (or this organisation/region is not allowed).${said}`;
    } else if (status === 404) {
      message =
        `model "${model}" was not found (404). Check the configured model name` +
        (ctx.official ? "." : " and that the base URL ends with /v1.") +
        said;
    } else if (status === 429 && err.code === "insufficient_quota") {
      message = `the account has run out of quota (429 insufficient_quota). Check the plan and billing of this API key.`;
    } else if (status === 429) {
      message = `rate limit exceeded (429)${after}. Wait a minute and try again, or embed fewer documents at once.${said}`;
    } else if (status >= 500) {
      message = `the server failed (${status})${after}. Try again later.${said}`;
    } else if (status === 400 && /context length|maximum.*tokens|too long|token limit/i.test(detail)) {
      message = `an input is too long for model "${model}" (400). Use smaller chunks.${said}`;
    } else {
      message = `the request was rejected (${status}).${said}`;
    }
    return new EmbeddingError(`${label}: ${message}`, PROVIDER, status);
  }
  const text = err instanceof Error ? err.message : String(err);
  return new EmbeddingError(`${label}: unexpected error: ${redactSecrets(text, [ctx.apiKey])}`, PROVIDER);
}

/** The server's own error text, redacted and shortened. */
function serverDetail(err: APIError, apiKey: string): string {
  const body = err.error as { message?: unknown } | undefined;
  let text = typeof body?.message === "string" ? body.message : err.message.replace(/^\d{3}\s*/, "");
  if (/^status code \(no body\)$/.test(text)) text = "";
  text = redactSecrets(text, [apiKey]).replace(/\s+/g, " ").trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function connectionReason(err: APIConnectionError): string {
  // fetch wraps the socket error: TypeError("fetch failed", { cause: Error{ code: "ECONNREFUSED" } })
  let cause: unknown = err.cause;
  for (let depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return "";
}
