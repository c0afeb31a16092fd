import type { RejectionCode } from "../extract/errors";

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
  no_pairs: 422,
  unknown_document: 422,
  // An upload where no file was indexed; 413 instead when every file was over a size limit.
  rejected: 422,
  // One file refused: too big in some way is 413 (SIZE_LIMIT_CODES), anything else 422.
  rejected_too_large: 413,
  rejected_too_much_text: 413,
  rejected_too_many_pages: 413,
  rejected_unsupported_type: 422,
  rejected_type_mismatch: 422,
  rejected_encoding: 422,
  rejected_empty: 422,
  rejected_unreadable: 422,
  rejected_extract_timeout: 422,
  rejected_extract_out_of_memory: 422,
  embedding_failed: 500,
  chat_failed: 500,
  internal: 500,
  unavailable: 503,
  // The request reached the server before it could tell where requests come from.
  starting: 503,
  vector_store_unavailable: 503,
} as const satisfies Record<string, number> & Record<`rejected_${RejectionCode}`, 413 | 422>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Expected failures: the code the API returns as is, and the status the code maps to. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} was not found.`);
export const invalid = (message: string) => new AppError("invalid_request", message);
export const conflict = (message: string) => new AppError("conflict", message);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const unavailable = (message: string) => new AppError("unavailable", message);

/** Chroma did not answer (down, hung or timed out): the request changed nothing and can be retried. */
export const vectorStoreUnavailable = () =>
  new AppError("vector_store_unavailable", "The vector store (Chroma) did not answer, so nothing was changed. Try again in a moment.");
