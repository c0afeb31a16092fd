// No `server-only`: the local embedder's word vectors (lib/embeddings/local/glove.ts) are loaded by scripts too.
import { layerState } from "../core/process-state";
import type { Embedder } from "./types";
import type { WordVectors } from "./local/word-vectors";

/** One load of the GloVe word vectors (lib/embeddings/local/glove.ts). */
export interface GloveLoad {
  vectors: WordVectors;
  file: string;
  /** Set when this call converted the package's JSON (first start with this DATA_DIR). */
  conversion?: { ms: number; peakRssMB: number };
  loadMs: number;
  bytes: number;
}

/** The embedding providers' process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface EmbeddingsState {
  /**
   * The configured embedding provider (the local word vectors or OpenAI), made by
   * lib/embeddings/configured.ts on first use (null until then); tests and the bench put one of
   * their own in its place (useEmbedder). It holds a loaded model or an API client, and every
   * ingest, search and health check must embed with the same one.
   */
  embedder: Embedder | null;
  /**
   * The other provider a chunk-settings sweep compares with, or null when there is none; undefined
   * until lib/embeddings/configured.ts first decides. It holds a loaded model or an API client,
   * like the configured one, and a sweep runs after its request answered.
   */
  alternative?: Embedder | null;
  /**
   * Loads of the GloVe word vectors by cache file, as promises (a failed one is dropped and tried
   * again), by lib/embeddings/local/glove.ts: the vectors take seconds and hundreds of MB to load,
   * and every local embedder of the process shares one load.
   */
  glove: Map<string, Promise<GloveLoad>>;
}

function createEmbeddingsState(): EmbeddingsState {
  return { embedder: null, glove: new Map() };
}

/** The embedding providers' values, made on first use in this process. */
export const embeddingsState = () => layerState("embeddings", createEmbeddingsState);
