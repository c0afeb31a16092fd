import "server-only";
import { env } from "../env.mjs";
import { processState } from "../core/process-state";
import { createEmbedder, type Embedder } from ".";

/** The configured embedding provider, created once per process. */
export function embedder(): Embedder {
  return processState<Embedder>("embedder", () => {
    const e = env();
    return e.EMBEDDING_PROVIDER === "local"
      ? createEmbedder({ provider: "local" })
      : createEmbedder({
          provider: "openai",
          apiKey: e.OPENAI_API_KEY,
          baseURL: e.OPENAI_BASE_URL,
          model: e.OPENAI_EMBEDDING_MODEL,
          dimension: e.OPENAI_EMBEDDING_DIMENSION,
        });
  });
}

/**
 * The other provider, to compare with in a chunk-settings sweep: the local embedder when the app
 * embeds with OpenAI, OpenAI's model when the app embeds locally and OpenAI (or a compatible
 * server) is configured; null when there is none.
 */
export function alternativeEmbedder(): Embedder | null {
  // null (there is none) is kept too: decided once.
  return processState<Embedder | null>("alternative", () => {
    const e = env();
    return e.EMBEDDING_PROVIDER === "openai"
      ? createEmbedder({ provider: "local" })
      : e.OPENAI_API_KEY || e.OPENAI_BASE_URL
        ? createEmbedder({
            provider: "openai",
            apiKey: e.OPENAI_API_KEY,
            baseURL: e.OPENAI_BASE_URL,
            model: e.OPENAI_EMBEDDING_MODEL,
            dimension: e.OPENAI_EMBEDDING_DIMENSION,
          })
        : null;
  });
}
