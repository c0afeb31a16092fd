import "server-only";
import { env } from "../env.mjs";
import { embeddingsState } from "./state";
import { createEmbedder, type Embedder } from ".";

/** The configured embedding provider, created once per process. */
export function embedder(): Embedder {
  const state = embeddingsState();
  return (state.embedder ??= configuredEmbedder());
}

function configuredEmbedder(): Embedder {
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
}

/**
 * Puts `e` in the configured provider's place for the rest of the process (tests, and the bench's
 * runs of other models); undefined goes back to the configured one, made again on next use.
 */
export function useEmbedder(e: Embedder | undefined): void {
  embeddingsState().embedder = e ?? null;
}

/**
 * The other provider, to compare with in a chunk-settings sweep: the local embedder when the app
 * embeds with OpenAI, OpenAI's model when the app embeds locally and OpenAI (or a compatible
 * server) is configured; null when there is none.
 */
export function alternativeEmbedder(): Embedder | null {
  // null (there is none) is kept too: decided once.
  const state = embeddingsState();
  if (state.alternative !== undefined) return state.alternative;
  const e = env();
  return (state.alternative =
    e.EMBEDDING_PROVIDER === "openai"
      ? createEmbedder({ provider: "local" })
      : e.OPENAI_API_KEY || e.OPENAI_BASE_URL
        ? createEmbedder({
            provider: "openai",
            apiKey: e.OPENAI_API_KEY,
            baseURL: e.OPENAI_BASE_URL,
            model: e.OPENAI_EMBEDDING_MODEL,
            dimension: e.OPENAI_EMBEDDING_DIMENSION,
          })
        : null);
}
