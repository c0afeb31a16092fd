/** Why lib/extract refused a file; the API answers `rejected_{code}` (ERROR_STATUS below). */
export type RejectionCode =
  | "unsupported_type"
  | "type_mismatch"
  | "encoding"
  | "empty"
  | "too_large"
  | "unreadable"
  | "too_much_text"
  | "too_many_pages"
  | "extract_timeout"
  | "extract_out_of_memory"
  | "too_many_pixels"
  | "too_many_scanned_pages"
  | "ocr_no_text";

/**
 * Every error code the API answers with, and its HTTP status: the one place a status is chosen.
 * lib/auth/gate.ts answers forbidden_host, forbidden_origin, sign_in_required, starting,
 * invalid_path, unauthorized and forbidden itself, and proxy.ts request_too_large, with these statuses.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_multipart: 400,
  // A path whose percent-escapes would make Next route it otherwise than it reads ("/%61pi").
  invalid_path: 400,
  unauthorized: 401,
  forbidden: 403,
  forbidden_host: 403,
  forbidden_origin: 403,
  // Sign-in is off and the request came through a proxy or from another machine.
  sign_in_required: 403,
  not_found: 404,
  conflict: 409,
  embedding_model_mismatch: 409,
  request_too_large: 413,
  too_many_files: 413,
  invalid_request: 422,
  // A metadata filter with an unknown operator or a value the operator cannot take.
  invalid_filter: 422,
  // A metadata filter naming a key no document of the agent has.
  unknown_filter_key: 422,
  no_pairs: 422,
  unknown_document: 422,
  // An upload where no file was indexed; 413 instead when every file was over a size limit.
  rejected: 422,
  // One file refused: too big in some way is 413 (SIZE_LIMIT_CODES), anything else 422.
  rejected_too_large: 413,
  rejected_too_much_text: 413,
  rejected_too_many_pages: 413,
  // An image, or a PDF page's rendering, past MAX_IMAGE_PIXELS; a PDF with more pages to read by OCR than OCR_MAX_PAGES.
  rejected_too_many_pixels: 413,
  rejected_too_many_scanned_pages: 413,
  rejected_unsupported_type: 422,
  rejected_type_mismatch: 422,
  rejected_encoding: 422,
  rejected_empty: 422,
  rejected_unreadable: 422,
  rejected_extract_timeout: 422,
  rejected_extract_out_of_memory: 422,
  // OCR found no text (or only what it read with less than OCR_MIN_CONFIDENCE) in an image or a scanned PDF.
  rejected_ocr_no_text: 422,
  embedding_failed: 500,
  chat_failed: 500,
  // The agent's reranker (a reranking endpoint or the chat model) failed or answered out of shape.
  reranker_failed: 502,
  internal: 500,
  unavailable: 503,
  // The request reached the server before it could tell where requests come from.
  starting: 503,
  vector_store_unavailable: 503,
} as const satisfies Record<string, number> & Record<`rejected_${RejectionCode}`, 413 | 422>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The base of every error the app throws on purpose (AppError, EmbeddingError, RejectedFileError):
 * it names the API code it answers with and says what failed in words a user can act on.
 * Anything else (a library's error, a bug) is worded by describeFailure(), its text left for the server log.
 */
export abstract class BaseError extends Error {
  /** The code the API answers this failure with; its status is ERROR_STATUS[errorCode]. */
  abstract get errorCode(): ErrorCode;

  /** What a user reads: the message itself, unless the subclass puts it in context. */
  get userMessage(): string {
    return this.message;
  }
}

/** Expected failures: the code the API returns as is, and the status the code maps to. */
export class AppError extends BaseError {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }

  get errorCode(): ErrorCode {
    return this.code;
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} was not found.`);
export const invalid = (message: string) => new AppError("invalid_request", message);
export const conflict = (message: string) => new AppError("conflict", message);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const unavailable = (message: string) => new AppError("unavailable", message);

/**
 * Chroma did not answer (down, hung or timed out), and what that meant: by default that the
 * request changed nothing and can be retried.
 */
export const vectorStoreUnavailable = (consequence = "nothing was changed") =>
  new AppError("vector_store_unavailable", `The vector store (Chroma) did not answer, so ${consequence}. Try again in a moment.`);

// Network failures that mean the other side is gone or hung, wherever they surface.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

// On the prototype of a driver's error class: which of its errors mean the call was not served.
// A registered symbol, so every bundle's copy of this module reads the same mark.
const NOT_SERVED = Symbol.for("kb-inspector.vector-store-not-served");
type Marked = Error & { [NOT_SERVED]?: (err: Error) => boolean };

/**
 * Marks a class of the Chroma driver's errors (which this layer cannot import) as Chroma not
 * serving a call, for the instances `when` accepts; its subclasses inherit the mark and may set
 * their own. lib/vector-store does it as it loads, before any of them can be thrown.
 */
export function markNotServed(errorClass: abstract new (...args: never[]) => Error, when: (err: Error) => boolean = () => true): void {
  Object.defineProperty(errorClass.prototype, NOT_SERVED, { value: when, configurable: true });
}

/**
 * True when Chroma did not serve a call: refused, reset, timed out or aborted, or answered
 * that it is not serving (the errors lib/vector-store marks with markNotServed), anywhere along
 * the error's causes. A request Chroma answered and rejected, and the app's own errors (an
 * embedding provider failure with a refused connection among its causes too), are something else.
 */
export function isVectorStoreUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof BaseError) return false;
    if ((e as Marked)[NOT_SERVED]?.(e)) return true;
    if (e.name === "TimeoutError" || e.name === "AbortError") return true;
    if (NETWORK_CODES.has(String((e as { code?: unknown }).code))) return true;
  }
  return false;
}

// On the prototype of a driver's error class: Chroma's words, for the instances that say it could
// not read a collection's vector index from disk (null for the others). Registered, like NOT_SERVED.
const UNREADABLE_INDEX = Symbol.for("kb-inspector.vector-store-unreadable-index");
type MarkedUnreadable = Error & { [UNREADABLE_INDEX]?: (err: Error) => string | null };

/**
 * Marks a class of the Chroma driver's errors as Chroma failing to read a collection's vector
 * index (its files damaged), for the instances `detail` finds Chroma's words for that in.
 * lib/vector-store does it as it loads, with the text Chroma answers.
 */
export function markUnreadableIndex(errorClass: abstract new (...args: never[]) => Error, detail: (err: Error) => string | null): void {
  Object.defineProperty(errorClass.prototype, UNREADABLE_INDEX, { value: detail, configurable: true });
}

/**
 * Chroma's own words when it failed a call because it cannot read the collection's vector index
 * (the errors lib/vector-store marks with markUnreadableIndex), anywhere along the error's causes;
 * null for any other failure. Only rebuilding the index from the app's copies of the vectors ends it.
 */
export function unreadableIndexDetail(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof BaseError) return null;
    const detail = (e as MarkedUnreadable)[UNREADABLE_INDEX]?.(e);
    if (detail) return detail;
  }
  return null;
}

export const isUnreadableIndex = (err: unknown): boolean => unreadableIndexDetail(err) !== null;

/** The API code any failure answers with: the app's own, vector_store_unavailable, or internal. */
export function failureCode(err: unknown): ErrorCode {
  if (err instanceof BaseError) return err.errorCode;
  return isVectorStoreUnavailable(err) ? "vector_store_unavailable" : "internal";
}

/** Where a caller's situation needs other words than describeFailure's own. */
export interface FailureWords {
  /** What Chroma not answering meant, after "did not answer, so ": "nothing was changed" unless said. */
  unavailable?: string;
  /** The whole sentence for an unexpected failure, instead of "The {what} failed on the server; …". */
  unexpected?: string;
}

/**
 * The message a user reads about any failure: the app's own words for its own errors (an
 * embedding provider's failure and a rejected file among them) and for Chroma not answering;
 * for anything else "The {what} failed on the server; the details are in its log." ("Something
 * went wrong…" without a `what`), since a library's text can hold internals.
 */
export function describeFailure(err: unknown, what?: string, words: FailureWords = {}): string {
  if (err instanceof BaseError) return err.userMessage;
  if (isVectorStoreUnavailable(err)) return vectorStoreUnavailable(words.unavailable).message;
  if (isUnreadableIndex(err))
    return (
      `The ${what ?? "request"} failed: Chroma cannot read the collection's vector index (its files are damaged, as an unclean stop ` +
      "can leave them). Rebuild the index from the app's copies of the vectors: Index health → Rebuild index…."
    );
  if (words.unexpected) return words.unexpected;
  return what
    ? `The ${what} failed on the server; the details are in its log.`
    : "Something went wrong on the server; the details are in its log.";
}
