import { BaseError, type ErrorCode } from "../core/errors";

/** What the rest of the app needs from an embedding provider. */
export interface Embedder {
  /** Stable name of the model; changes whenever the vectors it produces would change. */
  readonly model: string;
  readonly dimension: number;
  /**
   * Names how embedQueries weights queries (recorded with each recall run, since it changes
   * distances without changing the stored vectors); absent when queries are embedded as is.
   */
  readonly queryWeighting?: string;
  /** One vector per input, in input order. Throws EmbeddingError on any provider failure. */
  embed(texts: string[]): Promise<number[][]>;
  /**
   * Optional query-side term weighting. A provider that has it counts each chunk's distinct
   * features (`countFeatures`, or takes them out again with n = -1) and embeds queries against those counts over the chunks being
   * searched (`embedQueries`). Chunk vectors never depend on the corpus; only queries do, so
   * nothing stored changes when documents are added.
   */
  countFeatures?(texts: string[], into: FeatureCounts, n?: 1 | -1): Promise<void>;
  embedQueries?(queries: string[], corpus: CorpusStats): Promise<number[][]>;
  /** The query's words as embedQueries weights them, for the inspector. */
  explainQuery?(query: string, corpus: CorpusStats): QueryWord[];
}

/** One distinct word of a query: in how many of the corpus's chunks it occurs, and its factor. */
export interface QueryWord {
  word: string;
  chunks: number;
  weight: number;
}

/** feature → number of chunks that have it; features are 32-bit integers. */
export interface FeatureCounts {
  readonly size: number;
  /** Adds n (default 1, may be negative) to the feature's count. */
  add(feature: number, n?: number): void;
  get(feature: number): number;
}

/** How many chunks a corpus has, and in how many of them each feature occurs. */
export interface CorpusStats {
  chunks: number;
  df: FeatureCounts;
}

/** The one error type every provider failure is turned into; `status` is the provider's HTTP status. */
export class EmbeddingError extends BaseError {
  constructor(
    message: string,
    readonly provider: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EmbeddingError";
  }

  get errorCode(): ErrorCode {
    return "embedding_failed";
  }

  get userMessage(): string {
    return `The embedding provider failed: ${this.message}`;
  }
}
