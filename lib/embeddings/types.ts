/** What the rest of the app needs from an embedding provider. */
export interface Embedder {
  /** Stable name of the model; changes whenever the vectors it produces would change. */
  readonly model: string;
  readonly dimension: number;
  /** One vector per input, in input order. Throws EmbeddingError on any provider failure. */
  embed(texts: string[]): Promise<number[][]>;
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
