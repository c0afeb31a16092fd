/** Expected failures: each carries the HTTP status and a code the API returns as is. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (what: string) => new AppError(404, "not_found", `${what} was not found.`);
export const invalid = (message: string) => new AppError(422, "invalid_request", message);
export const conflict = (message: string) => new AppError(409, "conflict", message);
export const forbidden = (message: string) => new AppError(403, "forbidden", message);
export const unavailable = (message: string) => new AppError(503, "unavailable", message);

/** Chroma did not answer (down, hung or timed out): the request changed nothing and can be retried. */
export const vectorStoreUnavailable = () =>
  new AppError(
    503,
    "vector_store_unavailable",
    "The vector store (Chroma) did not answer, so nothing was changed. Try again in a moment.",
  );
