import "server-only";
import { env } from "../env.mjs";
import { createEmbedder, type Embedder } from ".";

const holder = globalThis as unknown as { __kbEmbedder?: Embedder };

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
