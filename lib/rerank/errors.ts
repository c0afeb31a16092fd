import { AppError } from "../core/errors";

/**
 * A reranker that failed (its endpoint or the chat model did not answer, refused, or answered out
 * of shape): the API answers 502 `reranker_failed` with this message, which names the reranker
 * and never the provider's own text.
 */
export class RerankError extends AppError {
  constructor(message: string) {
    super("reranker_failed", message);
    this.name = "RerankError";
  }
}
