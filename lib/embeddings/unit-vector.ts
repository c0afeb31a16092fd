/**
 * The vector given to a text with nothing to embed (empty or whitespace-only): a zero vector has no
 * cosine distance (Chroma would return NaN), so it gets a fixed unit vector, 1 at index 0.
 */
export function unitVector(dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  v[0] = 1;
  return v;
}
