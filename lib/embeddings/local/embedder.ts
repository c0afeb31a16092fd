import path from "node:path";
import { env } from "../../env.mjs";
import { GLOVE_DIMENSION, loadGlove, type GloveLoad } from "./glove";
import {
  addCharNgrams,
  bucket,
  CountTable,
  fmix32,
  fnv1a,
  SEED_BIGRAM,
  SEED_PROBE2,
  SEED_PROBE_STEP,
  SEED_SIGN,
  SEED_WORD,
  stem,
  STOPWORDS,
  tokenize,
  type Token,
} from "./text-features";
import { EmbeddingError, type CorpusStats, type Embedder, type FeatureCounts, type QueryWord } from "../types";
import type { WordVectors } from "./word-vectors";

export { stem, tokenize, STOPWORDS } from "./text-features";

/**
 * Offline, key-less, deterministic embedder: a lexical part made by feature hashing and a
 * semantic part made from pretrained word vectors, concatenated.
 *
 * A chunk's vector (embed) depends only on its text and on fixed data (no vocabulary or IDF
 * learnt from the documents), so stored vectors never change when documents are added. Only
 * queries (embedQueries) are weighted by the searched agent's chunks: BM25's IDF per feature.
 *
 * Lexical part (`lexicalDimension` buckets):
 *   NFKC + lowercase → tokenise (letters/digits/marks, inner apostrophes dropped; every
 *   Han/Hiragana/Katakana character is its own token) → drop a small English stopword list →
 *   light suffix stemming, then three feature groups:
 *     - words:     stemmed content words
 *     - bigrams:   adjacent content words (never across . ! ? ; : or a newline), unordered
 *     - chargrams: character 3-, 4- and 5-grams of each content word, padded with boundary
 *                  markers — robust to inflections the stemmer misses, compounds and typos
 *   Each feature is hashed into two buckets with signs (collisions cancel on average), weighted
 *   1 + ln(tf); each group is L2-normalised and scaled by a fixed group weight.
 * Semantic part (100 dimensions): the SIF-weighted sum (Arora et al., 2017) of the GloVe vectors
 *   of the content words, where a word's weight a / (a + p(w)) comes from its frequency rank in
 *   GloVe's own corpus (Zipf: p ≈ 1 / (rank · H)), a fixed, corpus-independent weighting. The
 *   stored word vectors are unit length with the common mean and top components removed.
 * The two parts are each unit length, scaled by √(1 − w) and √w, so a cosine similarity is
 * (1 − w) · lexical cosine + w · semantic cosine. Text without any known English word gets a
 * lexical-only vector.
 *
 * ANY change to the features, weights, stopwords, stemmer, hashing or word vectors changes the
 * vectors and MUST bump the version (hence the model name), so stored vectors are never mixed
 * with new ones. local.test.ts pins a checksum per model name to catch a forgotten bump.
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

export function modelName(spec: LocalModelSpec): string {
  const semantic = spec.semanticWeight > 0;
  const dimension = spec.lexicalDimension + (semantic ? GLOVE_DIMENSION : 0);
  const defaults = semantic && spec.semanticWeight !== LOCAL_SPEC.semanticWeight ? `-w${spec.semanticWeight}` : "";
  const seed = spec.seed ? `-seed${spec.seed}` : "";
  const probes = (spec.probes ?? 2) !== 2 ? `-p${spec.probes}` : "";
  return `local-hash${semantic ? "-glove" : ""}-v${spec.version}-${dimension}${defaults}${probes}${seed}`;
}

export const LOCAL_MODEL = modelName(LOCAL_SPEC);
export const LOCAL_DIMENSION = LOCAL_SPEC.lexicalDimension + GLOVE_DIMENSION;

/** Fixed lexical group weights (relative; the lexical part is normalised as a whole). */
const WEIGHT_WORD = 1.0;
const WEIGHT_BIGRAM = 0.3;
const WEIGHT_CHARGRAM = 1.2;
/** SIF's smoothing constant: words more frequent than ~1/a of the text are discounted. */
const SIF_A = 1e-3;

/** Feature groups; a feature's id mixes its key with its group's tag. */
const GROUP_WORD = 0;
const GROUP_BIGRAM = 1;
const GROUP_CHARGRAM = 2;
/** Words that have a word vector (the semantic part); keys are word-vector entries. */
const GROUP_KNOWN = 3;
type FeatureGroup = typeof GROUP_WORD | typeof GROUP_BIGRAM | typeof GROUP_CHARGRAM | typeof GROUP_KNOWN;
const GROUP_TAGS = [0, 0x51ed27f3, 0x2c1b3c6d, 0x297a2d39] as const;

/**
 * A 32-bit id for a feature of a group, as the per-agent counts key it. Two features of an
 * agent share an id with a chance of about (features / 2³²): their counts then add up, which
 * only makes both a little less weighty.
 */
export function featureId(key: number, group: FeatureGroup): number {
  return group === GROUP_WORD ? key : fmix32(key ^ GROUP_TAGS[group]);
}

/**
 * The tokens a text's features are made from: its words without stopwords; all its words when it
 * has only stopwords ("to be or not to be"); the whole trimmed string when it has no word at all
 * ("???", "→"); nothing for empty or whitespace-only text.
 */
function contentTokens(text: string): Token[] {
  const normalized = (text ?? "").normalize("NFKC").toLowerCase();
  const tokens = tokenize(normalized);
  const content = tokens.filter((t) => !STOPWORDS.has(t.text));
  if (content.length > 0) return content;
  if (tokens.length > 0) return tokens;
  const trimmed = normalized.trim();
  return trimmed === "" ? [] : [{ text: trimmed, breakBefore: false }];
}

/** The id of a single word's word feature (tests and diagnostics). */
export function wordFeatureId(word: string): number {
  return featureId(fmix32(fnv1a(stem(word.normalize("NFKC").toLowerCase()), SEED_WORD)), GROUP_WORD);
}

/** Queries weighted by BM25's IDF of each feature among the searched agent's chunks. */
export const QUERY_WEIGHTING = "agent-idf-v1";

/** Per-feature factors applied to a query's features (1 leaves a feature as it is). */
export interface QueryWeights {
  weight(feature: number): number;
}

export interface LocalEmbedderOptions {
  spec?: LocalModelSpec;
  /** Word vectors to use instead of loading GloVe (tests use small ones). */
  wordVectors?: WordVectors;
  /** Where the converted GloVe file lives; default DATA_DIR/cache. */
  cacheDir?: string;
  log?: (msg: string) => void;
}

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

  // Scratch space reused across calls (embedOne is synchronous, so no interleaving).
  private readonly wordTf = new CountTable(512);
  private readonly bigramTf = new CountTable(512);
  private readonly charTf = new CountTable(4096);
  private readonly knownTf = new CountTable(512);
  private readonly group: Float64Array;
  private readonly acc: Float64Array;
  private readonly semantic = new Float64Array(GLOVE_DIMENSION);
  private readonly probes: number;
  private readonly probeWeight: number;

  constructor(private readonly options: LocalEmbedderOptions = {}) {
    this.spec = options.spec ?? LOCAL_SPEC;
    this.model = modelName(this.spec);
    this.dimension = this.spec.lexicalDimension + (this.spec.semanticWeight > 0 ? GLOVE_DIMENSION : 0);
    this.words = options.wordVectors ?? null;
    if (this.words && this.words.dims !== GLOVE_DIMENSION) {
      throw new EmbeddingError(`Word vectors must have ${GLOVE_DIMENSION} dimensions, not ${this.words.dims}.`, "local");
    }
    this.group = new Float64Array(this.spec.lexicalDimension);
    this.acc = new Float64Array(this.spec.lexicalDimension);
    this.probes = this.spec.probes ?? 2;
    if (!Number.isInteger(this.probes) || this.probes < 2) throw new Error(`probes must be an integer >= 2, not ${this.probes}`);
    this.probeWeight = this.probes === 2 ? Math.SQRT1_2 : 1 / Math.sqrt(this.probes);
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
    const weights = corpus.chunks > 0 ? idfWeights(corpus) : undefined;
    return queries.map((q) => this.embedOne(q, weights));
  }

  /**
   * The query's content words (one per stem, in query order) with the factor embedQueries gives
   * their word feature. Their n-grams, word pairs and word vectors get factors from their own
   * counts in the same way.
   */
  explainQuery(query: string, corpus: CorpusStats): QueryWord[] {
    const weights = corpus.chunks > 0 ? idfWeights(corpus) : undefined;
    const seen = new Set<number>();
    const out: QueryWord[] = [];
    for (const { text } of contentTokens(query)) {
      const f = wordFeatureId(text);
      if (seen.has(f)) continue;
      seen.add(f);
      out.push({ word: text, chunks: corpus.df.get(f), weight: weights ? weights.weight(f) : 1 });
    }
    return out;
  }

  /** Synchronous single-text version of embed(); needs ready() to have resolved. */
  embedOne(text: string, weights?: QueryWeights): number[] {
    const { spec } = this;
    const words = spec.semanticWeight > 0 ? this.words : null;
    if (spec.semanticWeight > 0 && !words) throw new Error("LocalEmbedder.embedOne() before ready() resolved");
    if (!this.collect(text, words)) return unitVector(this.dimension);
    const { wordTf, bigramTf, charTf } = this;
    const acc = this.acc;
    acc.fill(0);
    this.addGroup(wordTf, WEIGHT_WORD, GROUP_WORD, weights);
    this.addGroup(bigramTf, WEIGHT_BIGRAM, GROUP_BIGRAM, weights);
    this.addGroup(charTf, WEIGHT_CHARGRAM, GROUP_CHARGRAM, weights);
    const lexicalNorm = norm(acc);
    const semanticNorm = words ? this.semanticPart(words, weights) : 0;
    if (lexicalNorm === 0 && semanticNorm === 0) return unitVector(this.dimension); // everything cancelled out

    // Each present part gets its share; an absent one leaves the whole vector to the other.
    const w = lexicalNorm === 0 ? 1 : semanticNorm === 0 ? 0 : spec.semanticWeight;
    const out = new Array<number>(this.dimension);
    const lexScale = lexicalNorm === 0 ? 0 : Math.sqrt(1 - w) / lexicalNorm;
    for (let i = 0; i < spec.lexicalDimension; i++) out[i] = acc[i] * lexScale;
    if (this.dimension > spec.lexicalDimension) {
      const semScale = semanticNorm === 0 ? 0 : Math.sqrt(w) / semanticNorm;
      for (let i = 0; i < GLOVE_DIMENSION; i++) out[spec.lexicalDimension + i] = this.semantic[i] * semScale;
    }
    return out;
  }

  /**
   * Fills the count tables with the text's features; false for empty or whitespace-only text
   * (a zero vector would make Chroma's cosine distance NaN, so it gets a fixed unit vector).
   */
  private collect(text: string, words: WordVectors | null): boolean {
    const content = contentTokens(text);
    if (content.length === 0) return false;

    const { wordTf, bigramTf, charTf, knownTf } = this;
    wordTf.clear();
    bigramTf.clear();
    charTf.clear();
    knownTf.clear();

    let prevHash = 0;
    let hasPrev = false;
    for (const tok of content) {
      const raw = tok.text;
      const wordHash = fnv1a(stem(raw), SEED_WORD);
      wordTf.add(fmix32(wordHash));
      if (hasPrev && !tok.breakBefore && prevHash !== wordHash) {
        const lo = prevHash < wordHash ? prevHash : wordHash;
        const hi = prevHash < wordHash ? wordHash : prevHash;
        bigramTf.add(fmix32(Math.imul(lo, 0x9e3779b1) ^ hi ^ SEED_BIGRAM));
      }
      prevHash = wordHash;
      hasPrev = true;
      if (raw.length > 1) addCharNgrams(charTf, raw);
      if (words) {
        const entry = words.lookup(raw);
        if (entry >= 0) knownTf.add(entry);
      }
    }
    return true;
  }

  /** Adds `n` to `into` for each distinct feature of each text (see Embedder.countFeatures). */
  async countFeatures(texts: string[], into: FeatureCounts, n = 1): Promise<void> {
    await this.ready();
    const words = this.spec.semanticWeight > 0 ? this.words : null;
    const tables = [this.wordTf, this.bigramTf, this.charTf, this.knownTf] as const;
    for (const text of texts) {
      if (!this.collect(text, words)) continue;
      tables.forEach((tf, group) => {
        for (let k = 0; k < tf.size; k++) into.add(featureId(tf.keys[tf.slots[k]], group as FeatureGroup), n);
      });
    }
  }

  /** Fills this.semantic with the SIF-weighted sum of the known words' vectors; returns its norm. */
  private semanticPart(words: WordVectors, weights?: QueryWeights): number {
    const s = this.semantic;
    s.fill(0);
    const { keys, counts, slots } = this.knownTf;
    // p(rank) ≈ 1 / ((rank + 1) · H): Zipf's law over the source vocabulary.
    const harmonic = Math.log(words.sourceWords) + 0.5772156649;
    for (let k = 0; k < this.knownTf.size; k++) {
      const slot = slots[k];
      const entry = keys[slot];
      const count = counts[slot];
      const p = 1 / ((words.rank(entry) + 1) * harmonic);
      const w = weights ? weights.weight(featureId(entry, GROUP_KNOWN)) : 1;
      if (w !== 0) words.addTo(s, entry, w * (SIF_A / (SIF_A + p)) * (count === 1 ? 1 : 1 + Math.log(count)));
    }
    return norm(s);
  }

  private addGroup(tf: CountTable, weight: number, group: FeatureGroup, weights?: QueryWeights): void {
    const size = this.spec.lexicalDimension;
    if (tf.size === 0 || size === 0) return;
    const seed = this.spec.seed ?? 0;
    const probes = this.probes;
    const g = this.group;
    g.fill(0);
    const { keys, counts, slots } = tf;
    for (let k = 0; k < tf.size; k++) {
      const slot = slots[k];
      const h = seed ? fmix32(keys[slot] ^ seed) : keys[slot];
      const count = counts[slot];
      const value = (count === 1 ? 1 : 1 + Math.log(count)) * (weights ? weights.weight(featureId(keys[slot], group)) : 1);
      if (value === 0) continue;
      // Two probes per feature (v1, v2), each with its own sign: a collision that cancels one
      // probe only halves the feature instead of erasing it (matters for short queries). More
      // probes at 1/√probes each (count sketch) leave the variance of the collision noise in a
      // cosine unchanged at a given dimension; measured over 30 hash seeds they did not help.
      const v = value * this.probeWeight;
      const signs = fmix32(h ^ SEED_SIGN);
      g[bucket(h, size)] += signs & 1 ? -v : v;
      g[bucket(fmix32(h ^ SEED_PROBE2), size)] += signs < 0 ? -v : v;
      for (let p = 2; p < probes; p++) {
        const hp = fmix32(h ^ Math.imul(p, SEED_PROBE_STEP));
        g[bucket(hp, size)] += hp & 1 ? -v : v;
      }
    }
    const n = norm(g);
    if (n === 0) return;
    const scale = weight / n;
    const acc = this.acc;
    for (let i = 0; i < size; i++) acc[i] += g[i] * scale;
  }
}

/** BM25's inverse document frequency of each feature in a corpus; unseen features get the most. */
export function idfWeights(corpus: CorpusStats): QueryWeights {
  const n = corpus.chunks;
  return {
    weight: (f) => {
      const df = corpus.df.get(f);
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    },
  };
}

function norm(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

function unitVector(dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  v[0] = 1;
  return v;
}
