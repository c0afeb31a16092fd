import { EmbeddingError } from "../types";
import { PROVIDER } from "./errors";

export const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};
/** Models that accept the `dimensions` request parameter (shortened embeddings). */
const MODELS_WITH_DIMENSIONS_PARAM = new Set(["text-embedding-3-small", "text-embedding-3-large"]);

/**
 * The vector dimension of one model: known up front for OpenAI's models or when configured,
 * otherwise learnt from the first vector the server returns; every vector is then held to it.
 */
export class ModelDimension {
  /** Sent as `dimensions` (text-embedding-3-* shortened vectors only). */
  readonly requested: number | undefined;
  private current: number | undefined;

  constructor(
    private readonly label: string,
    private readonly model: string,
    configured: number | undefined,
  ) {
    const native = KNOWN_DIMENSIONS[model];
    if (configured !== undefined) {
      if (!Number.isInteger(configured) || configured <= 0) {
        throw new EmbeddingError(`${label}: dimension must be a positive integer, got ${configured}.`, PROVIDER);
      }
      if (native !== undefined && configured !== native) {
        if (!MODELS_WITH_DIMENSIONS_PARAM.has(model) || configured > native) {
          throw new EmbeddingError(
            `${label}: model "${model}" produces ${native}-dimensional vectors` +
              (MODELS_WITH_DIMENSIONS_PARAM.has(model) ? ` (or fewer via shortening)` : ``) +
              `; dimension ${configured} is not possible.`,
            PROVIDER,
          );
        }
        this.requested = configured;
      }
    }
    this.current = configured ?? native;
  }

  /** The dimension, or undefined while it is not known yet. */
  get known(): number | undefined {
    return this.current;
  }

  /** The dimension; throws while it is not known yet. */
  get value(): number {
    if (this.current === undefined) {
      throw new EmbeddingError(
        `${this.label}: the vector dimension of model "${this.model}" is not known yet. ` +
          `Configure the dimension, or call \`await embedder.init()\` before reading it.`,
        PROVIDER,
      );
    }
    return this.current;
  }

  /** Learns the dimension from the first vector, then rejects vectors of any other length. */
  check(length: number): void {
    if (this.current === undefined) {
      this.current = length; // learnt from the server, then enforced
    } else if (length !== this.current) {
      throw new EmbeddingError(
        `${this.label}: model "${this.model}" returned ${length}-dimensional vectors, but ` +
          `${this.current} were expected. Check the configured model and dimension ` +
          `(vectors of different sizes cannot share one index).`,
        PROVIDER,
      );
    }
  }
}
