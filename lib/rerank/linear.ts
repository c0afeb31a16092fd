import type { LinearModel } from "../core/rerankers";
import type { FeatureShare } from "./types";

export type { LinearModel };

/**
 * The learned reranker's model: a linear score over standardized features, trained listwise
 * (softmax over each question's pool, the expected document's chunks the targets) by plain
 * gradient descent from zero weights. No randomness anywhere: the same questions in the same
 * order give the same weights to the last bit.
 */

/** One training question: its pool's feature vectors and which candidates are of its expected document. */
export interface TrainingQuery {
  features: number[][];
  positive: boolean[];
}

export interface TrainOptions {
  epochs: number;
  rate: number;
  /** L2 penalty on the weights: keeps a feature that separates the training questions by chance from taking over. */
  l2: number;
}

export const TRAIN_DEFAULTS: TrainOptions = { epochs: 400, rate: 0.5, l2: 0.1 };

function standardize(queries: TrainingQuery[], width: number) {
  const mean = new Array<number>(width).fill(0);
  const sq = new Array<number>(width).fill(0);
  let n = 0;
  for (const q of queries)
    for (const x of q.features) {
      n++;
      for (let j = 0; j < width; j++) mean[j] += x[j];
    }
  for (let j = 0; j < width; j++) mean[j] = n ? mean[j] / n : 0;
  for (const q of queries) for (const x of q.features) for (let j = 0; j < width; j++) sq[j] += (x[j] - mean[j]) ** 2;
  const scale = sq.map((s) => {
    const sd = n ? Math.sqrt(s / n) : 0;
    return sd > 1e-9 ? sd : 1;
  });
  return { mean, scale };
}

export function trainLinear(features: readonly string[], queries: TrainingQuery[], opts: TrainOptions = TRAIN_DEFAULTS): LinearModel {
  const width = features.length;
  // Only questions whose pool holds their document teach anything about the order within it.
  const useful = queries.filter((q) => q.positive.some(Boolean) && q.positive.some((p) => !p));
  const { mean, scale } = standardize(useful, width);
  const data = useful.map((q) => ({
    x: q.features.map((row) => row.map((v, j) => (v - mean[j]) / scale[j])),
    positive: q.positive,
    share: 1 / q.positive.filter(Boolean).length,
  }));
  const w = new Array<number>(width).fill(0);
  if (data.length === 0) return { features, mean, scale, weights: w };
  const grad = new Array<number>(width);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    grad.fill(0);
    for (const q of data) {
      const s = q.x.map((row) => row.reduce((acc, v, j) => acc + v * w[j], 0));
      const top = Math.max(...s);
      const e = s.map((v) => Math.exp(v - top));
      const z = e.reduce((a, b) => a + b, 0);
      q.x.forEach((row, i) => {
        const diff = e[i] / z - (q.positive[i] ? q.share : 0);
        for (let j = 0; j < width; j++) grad[j] += diff * row[j];
      });
    }
    for (let j = 0; j < width; j++) w[j] -= opts.rate * (grad[j] / data.length + opts.l2 * w[j]);
  }
  return { features, mean, scale, weights: w };
}

/** Each feature's share of a candidate's score (weight times standardized value), in feature order. */
export function shares(model: LinearModel, x: number[]): number[] {
  return model.weights.map((w, j) => (w * (x[j] - model.mean[j])) / model.scale[j]);
}

export const scoreLinear = (model: LinearModel, x: number[]): number => shares(model, x).reduce((a, b) => a + b, 0);

/** The features that moved a score most, largest share first. */
export function topShares(model: LinearModel, x: number[], n = 3): FeatureShare[] {
  return shares(model, x)
    .map((contribution, j) => ({ feature: model.features[j], value: x[j], contribution }))
    .sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution) || a.feature.localeCompare(b.feature))
    .slice(0, n);
}
