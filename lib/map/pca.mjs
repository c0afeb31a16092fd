// Principal components of a sample of vectors, by randomized range finding (Halko, Martinsson and
// Tropp): plain ESM without imports, so the map's worker thread loads it as it is. A library PCA
// (ml-pca) decomposes the full covariance matrix: 76 s for 3,000 vectors of 1,024 dimensions
// here, against a few seconds for this at 5,000 (docs/performance.md, "The map").

/** A seeded generator of floats in [0, 1) (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw from a uniform generator (Box-Muller). */
function gaussian(random) {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** `k` of `n` ordinals, in increasing order, each equally likely (selection sampling). */
export function sampleOrdinals(n, k, random) {
  const out = new Int32Array(Math.min(n, k));
  let taken = 0;
  for (let i = 0; i < n && taken < out.length; i++) if (random() * (n - i) < out.length - taken) out[taken++] = i;
  return out;
}

/** Orthonormalises the `cols` columns of a row-major `rows` x `cols` matrix in place (modified Gram-Schmidt). */
function orthonormalise(m, rows, cols) {
  for (let j = 0; j < cols; j++) {
    for (let p = 0; p < j; p++) {
      let d = 0;
      for (let i = 0; i < rows; i++) d += m[i * cols + j] * m[i * cols + p];
      for (let i = 0; i < rows; i++) m[i * cols + j] -= d * m[i * cols + p];
    }
    let norm = 0;
    for (let i = 0; i < rows; i++) norm += m[i * cols + j] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < rows; i++) m[i * cols + j] /= norm;
  }
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a symmetric n x n matrix, by cyclic Jacobi rotations. */
function symmetricEigen(a, n) {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  return { values: Array.from({ length: n }, (_, i) => a[i * n + i]), vectors: v };
}

/**
 * The mean and the first `k` principal axes (row-major k x dim) of `rows` vectors (row-major
 * Float32Array, rows x dim): range finding with `k + 10` random directions and two power
 * iterations, then an exact decomposition of the small projected matrix.
 */
export function principalAxes(data, rows, dim, k, random) {
  const mean = new Float64Array(dim);
  for (let i = 0; i < rows; i++) for (let d = 0; d < dim; d++) mean[d] += data[i * dim + d];
  for (let d = 0; d < dim; d++) mean[d] /= Math.max(1, rows);
  const x = new Float64Array(rows * dim);
  for (let i = 0; i < rows; i++) for (let d = 0; d < dim; d++) x[i * dim + d] = data[i * dim + d] - mean[d];
  const l = Math.min(k + 10, dim, rows);
  // y = x * omega (rows x l), omega Gaussian (dim x l)
  const omega = new Float64Array(dim * l);
  for (let i = 0; i < omega.length; i++) omega[i] = gaussian(random);
  let y = times(x, rows, dim, omega, l);
  orthonormalise(y, rows, l);
  for (let it = 0; it < 2; it++) {
    const z = transposeTimes(x, rows, dim, y, l); // dim x l
    orthonormalise(z, dim, l);
    y = times(x, rows, dim, z, l);
    orthonormalise(y, rows, l);
  }
  // b = y^T x (l x dim); the eigenvectors of b b^T give b's right singular vectors
  const b = transposeTimes(y, rows, l, x, dim);
  const bbt = new Float64Array(l * l);
  for (let i = 0; i < l; i++)
    for (let j = i; j < l; j++) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += b[i * dim + d] * b[j * dim + d];
      bbt[i * l + j] = bbt[j * l + i] = s;
    }
  const { values, vectors } = symmetricEigen(bbt, l);
  const order = values.map((v, i) => [v, i]).sort((p, q) => q[0] - p[0] || p[1] - q[1]);
  const kept = Math.min(k, l);
  const axes = new Float32Array(kept * dim);
  for (let c = 0; c < kept; c++) {
    const col = order[c][1];
    let norm = 0;
    const axis = new Float64Array(dim);
    for (let i = 0; i < l; i++) for (let d = 0; d < dim; d++) axis[d] += vectors[i * l + col] * b[i * dim + d];
    for (let d = 0; d < dim; d++) norm += axis[d] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) axes[c * dim + d] = axis[d] / norm;
  }
  return { mean: Float32Array.from(mean), axes, components: kept };
}

/** a (n x m) times b (m x p), row-major. */
function times(a, n, m, b, p) {
  const out = new Float64Array(n * p);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < m; k++) {
      const aik = a[i * m + k];
      if (aik === 0) continue;
      for (let j = 0; j < p; j++) out[i * p + j] += aik * b[k * p + j];
    }
  return out;
}

/** a^T (a is n x m) times b (n x p): m x p. */
function transposeTimes(a, n, m, b, p) {
  const out = new Float64Array(m * p);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < m; k++) {
      const aik = a[i * m + k];
      if (aik === 0) continue;
      for (let j = 0; j < p; j++) out[k * p + j] += aik * b[i * p + j];
    }
  return out;
}

/** Projects `rows` vectors (row-major, rows x dim) onto the axes: rows x components, written into `out` at row `at`. */
export function reduce(pca, data, rows, dim, out, at) {
  const { mean, axes, components } = pca;
  // (x - mean) . axis = x . axis - mean . axis: one multiply-add per value in the inner loop.
  const offset = new Float64Array(components);
  for (let c = 0; c < components; c++) for (let d = 0; d < dim; d++) offset[c] += mean[d] * axes[c * dim + d];
  for (let i = 0; i < rows; i++) {
    const row = i * dim;
    let c = 0;
    // Four axes per pass over the row: a third of the time of one at a time, measured.
    for (; c + 4 <= components; c += 4) {
      const a0 = c * dim;
      const a1 = a0 + dim;
      const a2 = a1 + dim;
      const a3 = a2 + dim;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let d = 0; d < dim; d++) {
        const x = data[row + d];
        s0 += x * axes[a0 + d];
        s1 += x * axes[a1 + d];
        s2 += x * axes[a2 + d];
        s3 += x * axes[a3 + d];
      }
      const o = (at + i) * components + c;
      out[o] = s0 - offset[c];
      out[o + 1] = s1 - offset[c + 1];
      out[o + 2] = s2 - offset[c + 2];
      out[o + 3] = s3 - offset[c + 3];
    }
    for (; c < components; c++) {
      const axis = c * dim;
      let s = 0;
      for (let d = 0; d < dim; d++) s += data[row + d] * axes[axis + d];
      out[(at + i) * components + c] = s - offset[c];
    }
  }
}
