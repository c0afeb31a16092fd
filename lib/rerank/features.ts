import type { LabelIndex, LabeledQuestion } from "../core/rerankers";
import type { RerankCandidate } from "./types";

export type { LabelIndex, LabeledQuestion };
import { chunkWords, filenameWords, sharedBigrams, stemSet, wordsOf, type Words } from "./words";

/**
 * What the learned reranker (lib/rerank/learned.ts) sees of a candidate: numbers computed the
 * same way at training and at search time, from the candidate's place in the pool, its text and
 * document, and the agent's labels. Pure: the same query, pool and labels give the same numbers.
 */

/** The features, in the order of a feature vector. */
export const FEATURES = [
  "distance",
  "distance_gap",
  "vector_rank",
  "pool_rank",
  "keyword_rank",
  "words",
  "bigrams",
  "filename",
  "headings",
  "attached_questions",
  "label_similarity",
  "label_words",
  "document_labels",
  "first_chunk",
  "length",
] as const;
export type FeatureName = (typeof FEATURES)[number];

/** What the features say in words, for the inspector. */
export const FEATURE_LABELS: Record<FeatureName, string> = {
  distance: "vector distance",
  distance_gap: "distance behind the nearest candidate",
  vector_rank: "rank in the vector list",
  pool_rank: "rank in the mode's order",
  keyword_rank: "rank among keyword matches",
  words: "question's words in the chunk",
  bigrams: "question's word pairs in the chunk",
  filename: "question's words in the document's name",
  headings: "question's words in the chunk's headings",
  attached_questions: "question's words in the chunk's attached questions",
  label_similarity: "closest labeled question of its document",
  label_words: "words shared with a labeled question of its document",
  document_labels: "labeled questions of its document",
  first_chunk: "first chunk of its document",
  length: "chunk length",
};

/** A candidate as the features read it: the reranker's view plus the questions attached to the chunk. */
export interface FeatureCandidate extends RerankCandidate {
  questions?: string[];
}

export interface QueryInput {
  text: string;
  vector: number[];
}

const log2p = (x: number) => Math.log2(1 + x);

function cosine(a: number[], b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Each candidate's feature vector, in pool order. `exclude`: a question group left out of the
 * label features (a training question is never its own label).
 */
export function poolFeatures(query: QueryInput, pool: FeatureCandidate[], labels: LabelIndex, exclude?: number): number[][] {
  if (pool.length === 0) return [];
  const q: Words = wordsOf(query.text);
  const qStems = [...new Set(q.stems)];
  const qBigrams = new Set(q.bigrams);
  const chunks = pool.map((c) => chunkWords(c.text));
  const texts = chunks.map((c) => c.stems);
  // A word's weight is its rarity among the pool: words every candidate has tell them apart least.
  const idf = new Map(
    qStems.map((s) => {
      const df = texts.filter((t) => t.has(s)).length;
      return [s, Math.log(1 + (pool.length - df + 0.5) / (df + 0.5))];
    }),
  );
  const total = qStems.reduce((n, s) => n + idf.get(s)!, 0);
  const cover = (words: Set<string> | string[]) => {
    if (total === 0) return 0;
    const has = words instanceof Set ? words : new Set(words);
    return qStems.reduce((n, s) => n + (has.has(s) ? idf.get(s)! : 0), 0) / total;
  };
  const best = pool.reduce((m, c) => Math.min(m, c.distance), Number.POSITIVE_INFINITY);
  const perFile = new Map<string, { similarity: number; words: number; count: number }>();
  const labelsOf = (filename: string) => {
    let found = perFile.get(filename);
    if (!found) {
      const own = (labels.get(filename) ?? []).filter((l) => l.group !== exclude);
      found = {
        similarity: own.reduce((m, l) => Math.max(m, l.vector ? cosine(query.vector, l.vector) : 0), 0),
        words: own.reduce((m, l) => Math.max(m, cover(l.stems)), 0),
        count: own.length,
      };
      perFile.set(filename, found);
    }
    return found;
  };
  return pool.map((c, i) => {
    const label = labelsOf(c.filename);
    return [
      c.distance,
      c.distance - best,
      log2p(c.vector_rank ?? pool.length + 1),
      log2p(c.pool_rank),
      c.keyword_rank === null ? 0 : 1 / log2p(c.keyword_rank),
      cover(texts[i]),
      qBigrams.size === 0 ? 0 : sharedBigrams(chunks[i], qBigrams) / qBigrams.size,
      cover(filenameWords(c.filename)),
      cover(chunks[i].headings),
      cover(stemSet((c.questions ?? []).join("\n"))),
      label.similarity,
      label.words,
      Math.log(1 + label.count),
      c.chunk_index === 0 ? 1 : 0,
      Math.log(1 + c.text.length) / 8,
    ];
  });
}
