import { GLOVE_DIMENSION } from "./glove";

/**
 * What decides the local embedder's vectors, and so its model name.
 *
 * ANY change to the features, weights, stopwords, stemmer, hashing or word vectors changes the
 * vectors and MUST bump the version (hence the model name), so stored vectors are never mixed
 * with new ones. embedder.test.ts pins a checksum per model name to catch a forgotten bump.
 */
export interface LocalModelSpec {
  version: number;
  lexicalDimension: number;
  /** Share of the semantic part in a cosine similarity; 0 means lexical only (no word vectors). */
  semanticWeight: number;
  /** Extra hash seed (0 = the default hashing); the benchmark uses it to show seed-to-seed spread. */
  seed?: number;
  /**
   * Buckets per lexical feature (count sketch, weight 1/√probes each); default 2, as v1 and v2.
   * The benchmark uses other counts to show that they don't reduce hash-collision noise.
   */
  probes?: number;
}

export const LOCAL_SPEC: LocalModelSpec = { version: 2, lexicalDimension: 924, semanticWeight: 0.3 };

/** The lexical buckets, plus the word-vector dimensions when the spec has a semantic part. */
export function specDimension(spec: LocalModelSpec): number {
  return spec.lexicalDimension + (spec.semanticWeight > 0 ? GLOVE_DIMENSION : 0);
}

export function modelName(spec: LocalModelSpec): string {
  const semantic = spec.semanticWeight > 0;
  const dimension = specDimension(spec);
  const defaults = semantic && spec.semanticWeight !== LOCAL_SPEC.semanticWeight ? `-w${spec.semanticWeight}` : "";
  const seed = spec.seed ? `-seed${spec.seed}` : "";
  const probes = (spec.probes ?? 2) !== 2 ? `-p${spec.probes}` : "";
  return `local-hash${semantic ? "-glove" : ""}-v${spec.version}-${dimension}${defaults}${probes}${seed}`;
}

export const LOCAL_MODEL = modelName(LOCAL_SPEC);
export const LOCAL_DIMENSION = specDimension(LOCAL_SPEC);
