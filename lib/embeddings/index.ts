import { LOCAL_DIMENSION, LOCAL_MODEL, LocalEmbedder } from "./local/embedder";
import { OpenAIEmbedder } from "./openai/embedder";
import { EmbeddingError, type Embedder } from "./types";

export { EmbeddingError, type CorpusStats, type Embedder, type FeatureCounts, type QueryWord } from "./types";
import { CountTable } from "./local/text-features";
import type { FeatureCounts } from "./types";

/** An empty, growable feature → count table for Embedder.countFeatures. */
export function newFeatureCounts(): FeatureCounts {
  return new CountTable(1 << 12);
}

/** The non-zero counts as (feature, count) int32 pairs, to keep on disk. */
export function featureCountsToBuffer(counts: FeatureCounts): Buffer {
  const t = counts as CountTable;
  const out = new Int32Array(t.size * 2);
  let n = 0;
  for (let k = 0; k < t.size; k++) {
    const slot = t.slots[k];
    if (t.counts[slot] === 0) continue;
    out[n++] = t.keys[slot];
    out[n++] = t.counts[slot];
  }
  return Buffer.from(out.buffer, out.byteOffset, n * 4);
}

/** The table featureCountsToBuffer wrote. */
export function featureCountsFromBuffer(buf: Uint8Array): FeatureCounts {
  const pairs = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  let capacity = 1 << 12;
  while (capacity < pairs.length) capacity *= 2; // entries = pairs/2, load factor <= 1/2
  const t = new CountTable(capacity);
  for (let i = 0; i + 1 < pairs.length; i += 2) t.add(pairs[i], pairs[i + 1]);
  return t;
}
export { LocalEmbedder, LOCAL_MODEL, LOCAL_DIMENSION } from "./local/embedder";
export {
  OpenAIEmbedder,
  KNOWN_DIMENSIONS,
  DEFAULT_OPENAI_BASE_URL,
  MAX_INPUTS_PER_REQUEST,
  MAX_TOKENS_PER_REQUEST,
  MAX_INPUT_CHARS,
  type OpenAIEmbedderOptions,
} from "./openai/embedder";

export const DEFAULT_OPENAI_MODEL = "text-embedding-3-small";
/** Sent when an OpenAI-compatible server (baseURL set) needs no key; many local servers ignore it. */
export const PLACEHOLDER_API_KEY = "no-key-required";

export interface EmbedderConfig {
  provider: "local" | "openai";
  apiKey?: string;
  baseURL?: string;
  /** openai: default text-embedding-3-small. local: must be LOCAL_MODEL if given. */
  model?: string;
  /** openai: see OpenAIEmbedderOptions.dimension. local: must be LOCAL_DIMENSION if given. */
  dimension?: number;
}

/**
 * Builds the configured embedder. Throws EmbeddingError (an Error) for a configuration that
 * cannot work, e.g. provider "openai" against the OpenAI API without OPENAI_API_KEY.
 *
 * For an "openai" model whose dimension is unknown (not an OpenAI model, no `dimension`), the
 * returned embedder's `dimension` throws until `await (embedder as OpenAIEmbedder).init()` ran.
 */
export function createEmbedder(cfg: EmbedderConfig): Embedder {
  switch (cfg.provider) {
    case "local": {
      if (cfg.model && cfg.model !== LOCAL_MODEL) {
        throw new EmbeddingError(
          `The local embedder only provides model "${LOCAL_MODEL}", not "${cfg.model}". ` +
            `Remove the model setting or switch the provider to "openai".`,
          "local",
        );
      }
      if (cfg.dimension !== undefined && cfg.dimension !== LOCAL_DIMENSION) {
        throw new EmbeddingError(`The local embedder produces ${LOCAL_DIMENSION}-dimensional vectors, not ${cfg.dimension}.`, "local");
      }
      return new LocalEmbedder();
    }
    case "openai": {
      const baseURL = cfg.baseURL?.trim() || undefined;
      let apiKey = cfg.apiKey?.trim();
      if (!apiKey) {
        if (!baseURL) {
          throw new EmbeddingError(
            `OpenAI embeddings need an API key: set OPENAI_API_KEY, or use the "local" embedding provider.`,
            "openai",
          );
        }
        apiKey = PLACEHOLDER_API_KEY; // OpenAI-compatible local servers (Ollama, LM Studio…) accept any key
      }
      return new OpenAIEmbedder({
        apiKey,
        baseURL,
        model: cfg.model?.trim() || DEFAULT_OPENAI_MODEL,
        dimension: cfg.dimension,
      });
    }
    default: {
      const provider: never = cfg.provider;
      throw new EmbeddingError(`Unknown embedding provider "${String(provider)}": use "local" or "openai".`, String(provider));
    }
  }
}
