import { describe, expect, it } from "vitest";
import { principalAxes, seededRandom } from "./pca.mjs";
import { Projection } from "./projection.mjs";

const DIM = 64;

/** `n` vectors around `clusters` well-separated centres, each row's cluster is row % clusters. */
function clustered(n: number, clusters: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: DIM }, () => random() * 6));
  const out = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) for (let d = 0; d < DIM; d++) out[i * DIM + d] = centres[i % clusters][d] + random() * 0.5;
  return out;
}

function project(data: Float32Array, n: number, seed: number, sample: number, questions?: Float32Array) {
  const p = new Projection({ seed, dim: DIM, total: n, sample });
  for (const o of p.sample) p.addSample(data.subarray(o * DIM, (o + 1) * DIM), 1);
  p.fit();
  // Fed in uneven batches, as runs of documents come.
  for (let at = 0; at < n; at += 37) p.addRows(data.subarray(at * DIM), Math.min(37, n - at));
  if (questions) p.addQuestions(questions, questions.length / DIM);
  return p.layout();
}

const distance = (xy: Float32Array, a: number, b: number) => Math.hypot(xy[2 * a] - xy[2 * b], xy[2 * a + 1] - xy[2 * b + 1]);

describe("the map's projection", () => {
  it("gives the same coordinates for the same vectors and seed, and others for another seed", () => {
    const data = clustered(300, 4, 7);
    const a = project(data, 300, 42, 120);
    const b = project(data, 300, 42, 120);
    expect(Array.from(b.chunks)).toEqual(Array.from(a.chunks));
    const c = project(data, 300, 43, 120);
    expect(Array.from(c.chunks)).not.toEqual(Array.from(a.chunks));
  });

  it("keeps clusters apart and within [-1, 1], sampled points and placed ones alike", () => {
    const n = 400;
    const { chunks } = project(clustered(n, 4, 3), n, 42, 100);
    expect(chunks.length).toBe(2 * n);
    for (const v of chunks) expect(Math.abs(v)).toBeLessThanOrEqual(1 + 1e-6);
    let same = 0;
    let other = 0;
    for (let i = 0; i < n; i += 7)
      for (let j = i + 1; j < n; j += 5) {
        if (i % 4 === j % 4) same = Math.max(same, distance(chunks, i, j));
        else other += distance(chunks, i, j) < 0.05 ? 1 : 0;
      }
    // Every point of a cluster lies nearer its own than the clusters lie to each other.
    expect(other).toBe(0);
    expect(same).toBeLessThan(0.6);
  });

  it("places a question beside the chunks it is like, without moving them", () => {
    const n = 200;
    const data = clustered(n, 4, 5);
    const without = project(data, n, 42, 80);
    const question = data.slice(2 * DIM, 3 * DIM); // a copy of row 2, of cluster 2
    const { chunks, questions } = project(data, n, 42, 80, question);
    expect(questions.length).toBe(2);
    // Chunks only move by the rescale to [-1, 1] that takes the question in: their order along x stays.
    const order = (xy: Float32Array) => Array.from({ length: n }, (_, i) => i).sort((p, q) => xy[2 * p] - xy[2 * q]);
    expect(order(chunks)).toEqual(order(without.chunks));
    const both = new Float32Array([...chunks, ...questions]);
    const nearest = Array.from({ length: n }, (_, i) => i).sort((p, q) => distance(both, n, p) - distance(both, n, q))[0];
    expect(nearest % 4).toBe(2);
  });

  it("finds the principal axis of vectors stretched along one direction", () => {
    const random = seededRandom(1);
    const rows = 500;
    const axis = Array.from({ length: DIM }, (_, d) => (d === 5 ? 0.6 : d === 9 ? 0.8 : 0));
    const data = new Float32Array(rows * DIM);
    for (let i = 0; i < rows; i++) {
      const t = (random() - 0.5) * 20;
      for (let d = 0; d < DIM; d++) data[i * DIM + d] = t * axis[d] + (random() - 0.5) * 0.1;
    }
    const { axes, components } = principalAxes(data, rows, DIM, 3, seededRandom(2));
    expect(components).toBe(3);
    const first = Array.from(axes.subarray(0, DIM));
    expect(Math.abs(first[5] * 0.6 + first[9] * 0.8)).toBeGreaterThan(0.999);
  });
});
