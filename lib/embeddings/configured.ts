import "server-only";
import { env } from "../env.mjs";
import { createEmbedder, type Embedder } from ".";

const holder = globalThis as unknown as { __kbEmbedder?: Embedder; __kbAlternative?: Embedder | null };

/** The configured embedding provider, created once per process. */
export function embedder(): Embedder {
  if (!holder.__kbEmbedder) {
    const e = env();
    holder.__kbEmbedder =
      e.EMBEDDING_PROVIDER === "local"
        ? createEmbedder({ provider: "local" })
        : createEmbedder({
            provider: "openai",
            apiKey: e.OPENAI_API_KEY,
            baseURL: e.OPENAI_BASE_URL,
            model: e.OPENAI_EMBEDDING_MODEL,
            dimension: e.OPENAI_EMBEDDING_DIMENSION,
          });
  }
  return holder.__kbEmbedder;
}

/**
 * The other provider, to compare with in a chunk-settings sweep: the local embedder when the app
 * embeds with OpenAI, OpenAI's model when the app embeds locally and OpenAI (or a compatible
 * server) is configured; null when there is none.
 */
export function alternativeEmbedder(): Embedder | null {
  if (holder.__kbAlternative === undefined) {
    const e = env();
    holder.__kbAlternative =
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
          : null;
  }
  return holder.__kbAlternative;
}
