import type { FeatureCounts } from "../types";
import { unitVector } from "../unit-vector";
import { featureId, GROUP_BIGRAM, GROUP_CHARGRAM, GROUP_KNOWN, GROUP_WORD, type FeatureGroup } from "./feature-ids";
import { GLOVE_DIMENSION } from "./glove";
import { specDimension, type LocalModelSpec } from "./model-spec";
import type { QueryWeights } from "./query-weighting";
import { stem } from "./stemmer";
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
} from "./text-features";
import { contentTokens } from "./tokenizer";
import type { WordVectors } from "./word-vectors";

/** Fixed lexical group weights (relative; the lexical part is normalised as a whole). */
const WEIGHT_WORD = 1.0;
const WEIGHT_BIGRAM = 0.3;
const WEIGHT_CHARGRAM = 1.2;
/** SIF's smoothing constant: words more frequent than ~1/a of the text are discounted. */
const SIF_A = 1e-3;

/**
 * A text's vector for one model spec: a lexical part made by feature hashing and a semantic part
 * made from pretrained word vectors, concatenated.
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
 */
export class Vectorizer {
  readonly dimension: number;
  // Scratch space reused across calls (vectorize is synchronous, so no interleaving).
  private readonly wordTf = new CountTable(512);
  private readonly bigramTf = new CountTable(512);
  private readonly charTf = new CountTable(4096);
  private readonly knownTf = new CountTable(512);
  private readonly group: Float64Array;
  private readonly acc: Float64Array;
  private readonly semantic = new Float64Array(GLOVE_DIMENSION);
  private readonly probes: number;
  private readonly probeWeight: number;

  constructor(private readonly spec: LocalModelSpec) {
    this.dimension = specDimension(spec);
    this.group = new Float64Array(spec.lexicalDimension);
    this.acc = new Float64Array(spec.lexicalDimension);
    this.probes = spec.probes ?? 2;
    if (!Number.isInteger(this.probes) || this.probes < 2) throw new Error(`probes must be an integer >= 2, not ${this.probes}`);
    this.probeWeight = this.probes === 2 ? Math.SQRT1_2 : 1 / Math.sqrt(this.probes);
  }

  /** The text's vector; `words` is null for a lexical-only spec, `weights` set for a weighted query. */
  vectorize(text: string, words: WordVectors | null, weights?: QueryWeights): number[] {
    const { spec } = this;
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

  /** Adds `n` to `into` for each distinct feature of each text (see Embedder.countFeatures). */
  countFeatures(texts: string[], words: WordVectors | null, into: FeatureCounts, n: number): void {
    const tables = [this.wordTf, this.bigramTf, this.charTf, this.knownTf] as const;
    for (const text of texts) {
      if (!this.collect(text, words)) continue;
      tables.forEach((tf, group) => {
        for (let k = 0; k < tf.size; k++) into.add(featureId(tf.keys[tf.slots[k]], group as FeatureGroup), n);
      });
    }
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

function norm(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}
