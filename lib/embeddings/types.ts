/** What the rest of the app needs from an embedding provider. */
export interface Embedder {
  /** Stable name of the model; changes whenever the vectors it produces would change. */
  readonly model: string;
  readonly dimension: number;
  /** One vector per input, in input order. Throws EmbeddingError on any provider failure. */
  embed(texts: string[]): Promise<number[][]>;
  /**
   * Optional query-side term weighting. A provider that has it names each chunk's distinct
   * features (`corpusFeatures`) and embeds queries against the counts of those features over the
   * chunks being searched (`embedQueries`). Chunk vectors never depend on the corpus; only
   * queries do, so nothing stored changes when documents are added.
   */
  corpusFeatures?(texts: string[]): Promise<number[][]>;
  embedQueries?(queries: string[], corpus: CorpusStats): Promise<number[][]>;
}

/** How many of a corpus's chunks contain each feature (see Embedder.corpusFeatures). */
export interface CorpusStats {
  chunks: number;
  df: ReadonlyMap<number, number>;
}

/** The one error type every provider failure is turned into. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly provider: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EmbeddingError";
  }
}
