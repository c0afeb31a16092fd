import { describe, expect, it } from "vitest";
import { compileKernel } from "../../scripts/build-kernel.mjs";
import { KERNEL_WASM } from "./exact-kernel-wasm";
import { quantizeQuery, quantizeRow, ROWS_PER_CALL, unitQuery, VectorTable } from "./exact-kernel";

let seed = 99;
const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
const vectors = (rows: number, dim: number) => Float32Array.from({ length: rows * dim }, rand);

/** 1 - cosine similarity, in float64 from the float32 inputs. */
function reference(q: Float32Array, data: Float32Array, row: number, dim: number): number {
  let dot = 0;
  let qq = 0;
  let vv = 0;
  for (let i = 0; i < dim; i++) {
    const v = data[row * dim + i];
    dot += q[i] * v;
    qq += q[i] * q[i];
    vv += v * v;
  }
  return 1 - dot / Math.sqrt(qq * vv);
}

/**
 * Rows of the shapes quantizing meets: dense, spiky (a few large components among small ones, as
 * the local embedder's lexical buckets are), one large component alone or among small ones, zeros.
 */
function rowsOfEveryShape(rows: number, dim: number): Float32Array {
  const data = vectors(rows, dim);
  for (let r = 0; r < rows; r++) {
    const row = data.subarray(r * dim, (r + 1) * dim);
    const big = Math.floor((rand() + 0.5) * dim);
    if (r % 5 === 1) for (let i = 0; i < dim; i++) row[i] = i % 97 === r % 97 ? 40 * rand() : rand() / 50;
    else if (r % 5 === 2) row.fill(0)[big] = 30 * rand();
    else if (r % 5 === 3) for (let i = 0; i < dim; i++) row[i] = i === big ? 30 : rand() / 100;
    else if (r % 50 === 4) row.fill(0);
  }
  return data;
}

function scoreAll(t: VectorTable, queries: Float32Array[]): Float32Array[] {
  const out = queries.map(() => new Float32Array(t.rows));
  for (let from = 0; from < t.rows; from += ROWS_PER_CALL) t.score(queries, from, Math.min(ROWS_PER_CALL, t.rows - from), out, from);
  return out;
}

describe("the exact ranking's kernel", () => {
  it("is the compiled form of its text (npm run build:kernel)", async () => {
    expect(Buffer.from(KERNEL_WASM, "base64").equals(await compileKernel())).toBe(true);
  });

  it.each([300, 1024, 1536])(
    "gives every row's cosine distance to each of 1 to 7 queries at %i dimensions, past one call's rows",
    (dim) => {
      const rows = dim === 300 ? ROWS_PER_CALL + 700 : 900;
      const data = vectors(rows, dim);
      const t = new VectorTable(dim, rows);
      t.append(7, 0, 500, data.subarray(0, 500 * dim));
      t.append(8, 3, rows - 500, data.subarray(500 * dim));
      const queries = Array.from({ length: 7 }, () => Array.from({ length: dim }, rand));
      for (const n of [1, 3, 4, 7]) {
        const out = scoreAll(t, queries.slice(0, n).map(unitQuery));
        for (let q = 0; q < n; q++) {
          const qf = Float32Array.from(queries[q]);
          let worst = 0;
          for (let r = 0; r < rows; r++) worst = Math.max(worst, Math.abs(out[q][r] - reference(qf, data, r, dim)));
          expect(worst, `${n} queries, query ${q}`).toBeLessThan(2e-6);
        }
      }
      expect([t.documentOf[0], t.chunkOf[499], t.documentOf[500], t.chunkOf[500], t.chunkOf[rows - 1]]).toEqual([
        7,
        499,
        8,
        3,
        rows - 500 + 2,
      ]);
    },
  );

  it("drops a removed document's rows, keeps the others in order when compacted, and refuses rows past its capacity", () => {
    const dim = 64;
    const data = vectors(30, dim);
    const t = new VectorTable(dim, 30);
    t.append(1, 0, 10, data.subarray(0, 10 * dim));
    t.append(2, 0, 10, data.subarray(10 * dim, 20 * dim));
    t.append(3, 0, 10, data.subarray(20 * dim));
    expect(() => t.append(4, 0, 1, data.subarray(0, dim))).toThrow(RangeError);
    t.remove(2);
    expect([t.live, t.dead, t.hasDocument(2)]).toEqual([20, 10, false]);
    expect([...t.alive.subarray(8, 12)]).toEqual([1, 1, 0, 0]);

    const q = [unitQuery(Array.from({ length: dim }, rand))];
    const before = scoreAll(t, q)[0];
    const c = t.compacted(25);
    expect([c.rows, c.dead, c.capacity]).toEqual([20, 0, 25]);
    expect([...c.documentOf.subarray(0, 20)]).toEqual([...Array(10).fill(1), ...Array(10).fill(3)]);
    const after = scoreAll(c, q)[0];
    expect([...after]).toEqual([...before.subarray(0, 10), ...before.subarray(20, 30)]);
  });

  it.each([100, 1024])("keeps rows as bytes whose distances stay within each row's error bound at %i dimensions, also compacted", (dim) => {
    const rows = ROWS_PER_CALL + 300;
    const data = rowsOfEveryShape(rows, dim);
    const t = new VectorTable(dim, rows, "i8");
    t.append(4, 0, 1000, data.subarray(0, 1000 * dim));
    t.append(5, 0, rows - 1000, data.subarray(1000 * dim));
    const f = new VectorTable(dim, rows);
    f.append(4, 0, rows, data);
    const queries = Array.from({ length: 3 }, () => unitQuery(Array.from({ length: dim }, rand)));
    const approx = scoreAll(t, queries);
    const exact = scoreAll(f, queries);
    let widest = 0;
    for (const [k, q] of queries.entries()) {
      const qe = quantizeQuery(q).error;
      for (let r = 0; r < rows; r++) {
        const gap = Math.abs(approx[k][r] - exact[k][r]);
        expect(gap, `query ${k}, row ${r}`).toBeLessThanOrEqual(t.errorBound(r, qe));
        widest = Math.max(widest, t.errorBound(r, qe));
      }
    }
    // The bound is useful: well under the spread of distances between unrelated vectors.
    expect(widest).toBeLessThan(0.05);
    expect(f.errorBound(0, 0.5)).toBe(0);
    expect(t.bytes).toBeLessThan(f.bytes / 3);

    t.remove(4);
    const c = t.compacted(rows);
    expect([c.rows, c.precision]).toEqual([rows - 1000, "i8"]);
    expect([...scoreAll(c, queries)[0]]).toEqual([...approx[0].subarray(1000)]);
    expect([...c.errors.subarray(0, c.rows)]).toEqual([...t.errors.subarray(1000, rows)]);
  });

  it.each([384, 1024, 1536, 3072])(
    "rounds queries finer than the rows, and no sum overflows even where every component is as large as the next, at %i dimensions",
    (dim) => {
      // Every component of equal size is where the integer dot product is largest: with the
      // query's values as large as i16 allows, a sum past 2^31 wraps to a distance far off.
      const signs = Float32Array.from({ length: dim }, (_, i) => (i % 3 === 0 ? -1 : 1));
      const rows = new Float32Array(4 * dim);
      rows.set(signs, 0);
      rows.set(
        signs.map((x) => -x),
        dim,
      );
      rows.set(vectors(2, dim), 2 * dim);
      const t = new VectorTable(dim, 4, "i8");
      t.append(1, 0, 4, rows);
      const f = new VectorTable(dim, 4);
      f.append(1, 0, 4, rows);
      for (const q of [unitQuery(signs), unitQuery(Array.from({ length: dim }, rand))]) {
        const qe = quantizeQuery(q).error;
        const approx = scoreAll(t, [q])[0];
        const exact = scoreAll(f, [q])[0];
        for (let r = 0; r < 4; r++) expect(Math.abs(approx[r] - exact[r]), `row ${r}`).toBeLessThanOrEqual(t.errorBound(r, qe));
      }
      // A tenth of what rounding the query like a row would leave, or less (one of equal
      // components rounds without error either way).
      const q = unitQuery(Array.from({ length: dim }, rand));
      expect(quantizeQuery(q).error).toBeLessThan(quantizeRow(q, new Int16Array(dim), 0).error / 10);
      expect(scoreAll(t, [unitQuery(signs)])[0][0]).toBeCloseTo(0, 3);
      expect(scoreAll(t, [unitQuery(signs)])[0][1]).toBeCloseTo(2, 3);
    },
  );

  it.each([100, 384, 1024])(
    "scores an i8 table's rows against queries four at a time exactly as one at a time, at %i dimensions",
    (dim) => {
      const rows = dim === 100 ? ROWS_PER_CALL + 300 : 1500;
      const t = new VectorTable(dim, rows, "i8");
      t.append(1, 0, rows, rowsOfEveryShape(rows, dim));
      const queries = Array.from({ length: 9 }, () => unitQuery(Array.from({ length: dim }, rand)));
      const alone = queries.map((q) => scoreAll(t, [q])[0]);
      const differing = (got: Float32Array[], want: Float32Array[]) =>
        got.flatMap((d, k) => {
          const r = d.findIndex((x, i) => !Object.is(x, want[k][i]));
          return r < 0 ? [] : [`query ${k}, row ${r}: ${d[r]}, not ${want[k][r]}`];
        });
      // One at a time is itself 1 - qs * scale * dot, rounded to float32 at each step in that order.
      const { values, scale } = quantizeQuery(queries[0]);
      const stored = t.storedRows();
      const scales = new Float32Array(stored.scales.buffer, stored.scales.byteOffset, rows);
      const byFormula = alone[0].map((_, r) => {
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += values[i] * ((stored.data[r * t.stride + i] << 24) >> 24);
        return Math.fround(1 - Math.fround(Math.fround(scale * scales[r]) * Math.fround(dot)));
      });
      expect(differing([alone[0]], [byFormula])).toEqual([]);
      // Short runs and long ones, as a filtered scan scores them, with rows left out between.
      const ranges: [number, number][] = [
        [0, 1],
        [2, 15],
        [40, 700],
        [rows - 300, 300],
      ];
      const aloneInRanges = queries.map((q) => {
        const d = new Float32Array(rows).fill(-1);
        t.scoreRanges([q], ranges, [d], 0);
        return d;
      });
      for (const n of [1, 2, 3, 4, 5, 9]) {
        const batch = queries.slice(0, n);
        expect(differing(scoreAll(t, batch), alone), `score, ${n} queries`).toEqual([]);
        const inRanges = batch.map(() => new Float32Array(rows).fill(-1));
        t.scoreRanges(batch, ranges, inRanges, 0);
        expect(differing(inRanges, aloneInRanges), `scoreRanges, ${n} queries`).toEqual([]);
      }
      expect(alone[0][1]).not.toBe(alone[1][1]);
      expect(VectorTable.bytesFor(dim, rows, "i8")).toBe(t.bytes);
    },
  );

  it.each([100, 384, 1024])(
    "quantizes rows in WebAssembly to the bytes and scales quantizeRow gives, with errors that bound the true ones, at %i dimensions",
    (dim) => {
      const rows = 2000;
      const data = rowsOfEveryShape(rows, dim);
      const t = new VectorTable(dim, rows, "i8");
      // Runs of several sizes, past one call's staged rows, with scores written between them
      // (the staging area is also where scores go).
      let at = 0;
      for (const count of [1, 7, 600, rows - 608]) {
        t.append(1, at, count, data.subarray(at * dim, (at + count) * dim));
        at += count;
        scoreAll(t, [unitQuery(Array.from({ length: dim }, rand))]);
      }
      const stored = t.storedRows();
      const bytes = new Int8Array(stored.data.buffer, stored.data.byteOffset, rows * t.stride);
      const scales = new Float32Array(stored.scales.buffer, stored.scales.byteOffset, rows);
      const js = new Int8Array(dim);
      const wrong: string[] = [];
      let ties = 0;
      let widest = 0;
      for (let r = 0; r < rows; r++) {
        const v = data.subarray(r * dim, (r + 1) * dim);
        const b = bytes.subarray(r * t.stride, (r + 1) * t.stride);
        const { scale } = quantizeRow(v, js, 0);
        if (scales[r] !== scale) wrong.push(`row ${r}: scale ${scales[r]}, not ${scale}`);
        let sq = 0;
        for (let i = 0; i < dim; i++) sq += v[i] * v[i];
        const norm = Math.sqrt(sq);
        let err = 0;
        for (let i = 0; i < dim; i++) {
          if (b[i] !== js[i]) {
            // Only an exact tie may round the other way (to even here, up in JavaScript).
            const x = v[i] * (1 / (scale * norm));
            if (Math.abs(b[i] - js[i]) === 1 && Math.abs(x - Math.trunc(x)) === 0.5) ties++;
            else wrong.push(`row ${r}, component ${i}: ${b[i]}, not ${js[i]}`);
          }
          const e = norm === 0 ? 0 : v[i] / norm - b[i] * scales[r];
          err += e * e;
        }
        for (let i = dim; i < t.stride; i++) if (b[i] !== 0) wrong.push(`row ${r}: padding byte ${i} is ${b[i]}`);
        const truth = Math.sqrt(err);
        if (!(t.errors[r] >= truth && t.errors[r] <= truth + 1e-5)) wrong.push(`row ${r}: error ${t.errors[r]}, true ${truth}`);
        if (norm === 0 && (scales[r] !== 0 || t.errors[r] !== 0 || b.some((x) => x !== 0))) wrong.push(`row ${r} of zeros`);
        widest = Math.max(widest, t.errors[r]);
      }
      expect(wrong.slice(0, 10)).toEqual([]);
      expect(ties).toBeLessThanOrEqual(5);
      expect(widest).toBeGreaterThan(0);
    },
  );
});
