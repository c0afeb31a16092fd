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

/** Why a reranker cannot run, in the words a person setting it needs. */
export const notConfigured = {
  http: "The http reranker needs RERANK_BASE_URL (a Cohere-, Jina- or TEI-compatible /rerank endpoint); see docs/searching.md.",
  chat: "The chat reranker needs a chat model (OPENAI_CHAT_MODEL); see docs/searching.md.",
  learned: "No learned reranker has won its cross-validation for this agent yet: train one (POST /api/agents/{id}/reranker/train).",
};
