import path from "node:path";
import { env } from "../../env.mjs";
import { EmbeddingError, type CorpusStats, type Embedder, type FeatureCounts, type QueryWord } from "../types";
import { GLOVE_DIMENSION, loadGlove, type GloveLoad } from "./glove";
import { LOCAL_SPEC, modelName, specDimension, type LocalModelSpec } from "./model-spec";
import { corpusWeights, explainQueryWords, QUERY_WEIGHTING, type QueryWeights } from "./query-weighting";
import { Vectorizer } from "./vectorizer";
import type { WordVectors } from "./word-vectors";

export { featureId, wordFeatureId } from "./feature-ids";
export { LOCAL_DIMENSION, LOCAL_MODEL, LOCAL_SPEC, modelName, type LocalModelSpec } from "./model-spec";
export { idfWeights, QUERY_WEIGHTING, type QueryWeights } from "./query-weighting";
export { stem } from "./stemmer";
export { STOPWORDS, tokenize } from "./tokenizer";

export interface LocalEmbedderOptions {
  spec?: LocalModelSpec;
  /** Word vectors to use instead of loading GloVe (tests use small ones). */
  wordVectors?: WordVectors;
  /** Where the converted GloVe file lives; default DATA_DIR/cache. */
  cacheDir?: string;
  log?: (msg: string) => void;
}

/**
 * Offline, key-less, deterministic embedder: a lexical part made by feature hashing and a
 * semantic part made from pretrained word vectors, concatenated (see Vectorizer).
 *
 * A chunk's vector (embed) depends only on its text and on fixed data (no vocabulary or IDF
 * learnt from the documents), so stored vectors never change when documents are added. Only
 * queries (embedQueries) are weighted by the searched agent's chunks: BM25's IDF per feature.
 */
export class LocalEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  /** See embedQueries; change the name if the weighting ever changes. */
  readonly queryWeighting = QUERY_WEIGHTING;
  private readonly spec: LocalModelSpec;
  private words: WordVectors | null;
  private loading: Promise<GloveLoad> | null = null;
  /** How the word vectors were obtained (conversion or load time), once ready. */
  loadInfo: GloveLoad | null = null;
  private readonly vectorizer: Vectorizer;

  constructor(private readonly options: LocalEmbedderOptions = {}) {
    this.spec = options.spec ?? LOCAL_SPEC;
    this.model = modelName(this.spec);
    this.dimension = specDimension(this.spec);
    this.words = options.wordVectors ?? null;
    if (this.words && this.words.dims !== GLOVE_DIMENSION) {
      throw new EmbeddingError(`Word vectors must have ${GLOVE_DIMENSION} dimensions, not ${this.words.dims}.`, "local");
    }
    this.vectorizer = new Vectorizer(this.spec);
  }

  /** Loads the word vectors (converting them on the very first start); embed() calls it. */
  async ready(): Promise<void> {
    if (this.words || this.spec.semanticWeight === 0) return;
    this.loading ??= loadGlove(this.options.cacheDir ?? path.join(env().DATA_DIR, "cache"), { log: this.options.log });
    try {
      this.loadInfo = await this.loading;
    } catch (err) {
      this.loading = null;
      if (err instanceof EmbeddingError) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new EmbeddingError(`The local embedder could not load its word vectors: ${why}`, "local", undefined, { cause: err });
    }
    this.words = this.loadInfo.vectors;
  }

  async embed(texts: string[]): Promise<number[][]> {
    await this.ready();
    const out: number[][] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      out[i] = this.embedOne(texts[i]);
      // Don't block the server's event loop for seconds on very large batches.
      if (i % 1000 === 999) await new Promise<void>((r) => setTimeout(r, 0));
    }
    return out;
  }

  /**
   * Query vectors weighted for one corpus (an agent's chunks): each query feature is multiplied by
   * its inverse document frequency there, BM25's ln(1 + (N − df + 0.5) / (df + 0.5)). A word in
   * nearly every chunk ("debian" in a Debian FAQ) then barely counts, and a word in few chunks
   * decides. Chunk vectors are unweighted, so the weighting applies once, as in BM25.
   */
  async embedQueries(queries: string[], corpus: CorpusStats): Promise<number[][]> {
    await this.ready();
    const weights = corpusWeights(corpus);
    return queries.map((q) => this.embedOne(q, weights));
  }

  /** The query's content words with the factor embedQueries gives their word feature. */
  explainQuery(query: string, corpus: CorpusStats): QueryWord[] {
    return explainQueryWords(query, corpus);
  }

  /** Synchronous single-text version of embed(); needs ready() to have resolved. */
  embedOne(text: string, weights?: QueryWeights): number[] {
    const words = this.semanticWords();
    if (this.spec.semanticWeight > 0 && !words) throw new Error("LocalEmbedder.embedOne() before ready() resolved");
    return this.vectorizer.vectorize(text, words, weights);
  }

  /** Adds `n` to `into` for each distinct feature of each text (see Embedder.countFeatures). */
  async countFeatures(texts: string[], into: FeatureCounts, n = 1): Promise<void> {
    await this.ready();
    this.vectorizer.countFeatures(texts, this.semanticWords(), into, n);
  }

  /** The word vectors when the spec has a semantic part; null for a lexical-only spec. */
  private semanticWords(): WordVectors | null {
    return this.spec.semanticWeight > 0 ? this.words : null;
  }
}
