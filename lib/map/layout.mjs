// The 2-D layout of the map from reduced vectors: UMAP (umap-js) over a sample, and every other
// point placed among its nearest sampled neighbours. Plain ESM, loaded by the map's worker thread.
import { UMAP } from "umap-js";

/** Neighbours UMAP builds its graph from (umap-js's default). */
const NEIGHBOURS = 15;
/** Optimisation epochs: umap-js picks 500 below 10,000 points; 200 keeps a large sample's layout to seconds. */
const EPOCHS = 200;
/** Sampled neighbours a point not in the sample is placed among, weighted by nearness. */
const PLACE_NEIGHBOURS = 5;
/** Reduced dimensions the placement compares (the principal ones): its cost grows with them. */
const PLACE_DIMENSIONS = 16;

/**
 * UMAP coordinates (x, y per point) of the sampled rows of `reduced` (rows x dims). Fewer than
 * four points have no neighbourhood to keep: their first two principal components are used.
 */
export function layoutSample(reduced, dims, sample, random, onEpoch) {
  const n = sample.length;
  const out = new Float32Array(n * 2);
  if (n < 4) {
    sample.forEach((row, i) => {
      out[2 * i] = reduced[row * dims];
      out[2 * i + 1] = dims > 1 ? reduced[row * dims + 1] : 0;
    });
    return out;
  }
  const data = Array.from(sample, (row) => Array.from(reduced.subarray(row * dims, (row + 1) * dims)));
  const umap = new UMAP({ nComponents: 2, nNeighbors: Math.min(NEIGHBOURS, n - 1), minDist: 0.1, nEpochs: EPOCHS, random });
  const epochs = umap.initializeFit(data);
  for (let e = 0; e < epochs; e++) {
    umap.step();
    if (onEpoch && e % 10 === 0) onEpoch(e / epochs);
  }
  umap.getEmbedding().forEach(([x, y], i) => {
    out[2 * i] = x;
    out[2 * i + 1] = y;
  });
  return out;
}

/**
 * Places each of `count` rows of `vectors` (reduced, rows x dims) at the mean of the layout of
 * its nearest sampled rows, weighted by nearness; a row that is a sampled one lands on it.
 */
export function placeAmong(vectors, count, dims, sampleVectors, sampleLayout, onRows) {
  const n = sampleLayout.length / 2;
  const p = Math.min(PLACE_DIMENSIONS, dims);
  const k = Math.min(PLACE_NEIGHBOURS, n);
  const out = new Float32Array(count * 2);
  const bestD = new Float64Array(k);
  const bestI = new Int32Array(k);
  for (let r = 0; r < count; r++) {
    bestD.fill(Infinity);
    for (let s = 0; s < n; s++) {
      let d = 0;
      for (let c = 0; c < p; c++) {
        const diff = vectors[r * dims + c] - sampleVectors[s * dims + c];
        d += diff * diff;
      }
      if (d >= bestD[k - 1]) continue;
      let at = k - 1;
      while (at > 0 && bestD[at - 1] > d) {
        bestD[at] = bestD[at - 1];
        bestI[at] = bestI[at - 1];
        at--;
      }
      bestD[at] = d;
      bestI[at] = s;
    }
    let wx = 0;
    let wy = 0;
    let w = 0;
    for (let j = 0; j < k; j++) {
      const weight = 1 / (Math.sqrt(bestD[j]) + 1e-6);
      wx += weight * sampleLayout[2 * bestI[j]];
      wy += weight * sampleLayout[2 * bestI[j] + 1];
      w += weight;
    }
    out[2 * r] = wx / w;
    out[2 * r + 1] = wy / w;
    if (onRows && r % 2048 === 2047) onRows(r + 1);
  }
  return out;
}

/** Centres the points and scales them into [-1, 1], keeping their aspect ratio; every list given is moved alike. */
export function normalise(...lists) {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const xy of lists)
    for (let i = 0; i < xy.length; i += 2) {
      minX = Math.min(minX, xy[i]);
      maxX = Math.max(maxX, xy[i]);
      minY = Math.min(minY, xy[i + 1]);
      maxY = Math.max(maxY, xy[i + 1]);
    }
  if (!Number.isFinite(minX)) return;
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  const half = Math.max(maxX - minX, maxY - minY) / 2 || 1;
  for (const xy of lists)
    for (let i = 0; i < xy.length; i += 2) {
      xy[i] = (xy[i] - cx) / half;
      xy[i + 1] = (xy[i + 1] - cy) / half;
    }
}
