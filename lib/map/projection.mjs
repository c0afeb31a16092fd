// One map's projection, fed vectors a batch at a time: principal components fitted on a seeded
// sample, every vector reduced to them as it comes, then the 2-D layout. Plain ESM: the worker
// thread (worker.mjs) drives it, and so can a test or the bench in their own thread.
import { layoutSample, normalise, placeAmong } from "./layout.mjs";
import { principalAxes, reduce, sampleOrdinals, seededRandom } from "./pca.mjs";

/** Principal components every vector is reduced to before the layout. */
export const COMPONENTS = 50;
/** Vectors the layout is computed from; the others are placed among them (umap-js's graph grows too slow past this). */
export const SAMPLE = 5_000;

/** The ordinals of the sampled vectors among `total`, for a seed: the caller sends those first (addSample). */
export const sampledOrdinals = (total, seed, sample = SAMPLE) => sampleOrdinals(total, sample, seededRandom(seed));

export class Projection {
  /** @param {{ seed: number; dim: number; total: number; sample?: number }} o */
  constructor(o) {
    this.seed = o.seed;
    this.dim = o.dim;
    this.total = o.total;
    this.sample = sampledOrdinals(o.total, o.seed, o.sample ?? SAMPLE);
    this.sampleVectors = new Float32Array(this.sample.length * o.dim);
    this.sampleRows = 0;
    this.pca = null;
    this.reduced = null;
    this.rows = 0;
    this.questions = new Float32Array(0);
    this.questionRows = 0;
  }

  /** Vectors of sampled ordinals, in ordinal order (rows x dim, row-major). */
  addSample(vectors, rows) {
    this.sampleVectors.set(vectors.subarray(0, rows * this.dim), this.sampleRows * this.dim);
    this.sampleRows += rows;
  }

  fit() {
    const random = seededRandom(this.seed + 1);
    this.pca = principalAxes(this.sampleVectors, this.sampleRows, this.dim, COMPONENTS, random);
    this.sampleVectors = new Float32Array(0);
    this.reduced = new Float32Array(this.total * this.pca.components);
  }

  /** Every vector, in ordinal order, after fit. */
  addRows(vectors, rows) {
    const fits = Math.min(rows, this.total - this.rows);
    reduce(this.pca, vectors, fits, this.dim, this.reduced, this.rows);
    this.rows += fits;
  }

  /** Vectors placed on the map without moving it (the questions), after fit. */
  addQuestions(vectors, rows) {
    const c = this.pca.components;
    const grown = new Float32Array((this.questionRows + rows) * c);
    grown.set(this.questions);
    reduce(this.pca, vectors, rows, this.dim, grown, this.questionRows);
    this.questions = grown;
    this.questionRows += rows;
  }

  /**
   * The 2-D coordinates (x, y per row, in [-1, 1]) of the vectors and of the questions.
   * `onProgress(phase, fraction)` hears how far it is.
   */
  layout(onProgress = () => {}) {
    const c = this.pca.components;
    const sample = Array.from(this.sample).filter((o) => o < this.rows);
    const sampleVectors = new Float32Array(sample.length * c);
    sample.forEach((o, i) => sampleVectors.set(this.reduced.subarray(o * c, (o + 1) * c), i * c));
    const sampleLayout = layoutSample(this.reduced, c, sample, seededRandom(this.seed + 2), (f) => onProgress("layout", f));
    const chunks = placeAmong(this.reduced, this.rows, c, sampleVectors, sampleLayout, (n) => onProgress("placing", n / this.rows));
    // Sampled vectors keep their own place rather than the mean of their neighbours'.
    sample.forEach((o, i) => {
      chunks[2 * o] = sampleLayout[2 * i];
      chunks[2 * o + 1] = sampleLayout[2 * i + 1];
    });
    const questions = placeAmong(this.questions, this.questionRows, c, sampleVectors, sampleLayout);
    normalise(chunks, questions);
    return { chunks, questions };
  }
}
