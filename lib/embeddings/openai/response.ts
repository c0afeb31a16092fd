import { EmbeddingError } from "../types";
import { PROVIDER } from "./errors";

/**
 * The vectors of an embeddings response in input order (by each item's `index`), decoded from
 * number arrays or base64 float32 and checked one by one; `checkDimension` sees each vector's
 * length in turn.
 */
export function parseEmbeddings(response: unknown, expected: number, label: string, checkDimension: (length: number) => void): number[][] {
  const malformed = (detail: string) => new EmbeddingError(`${label}: the server returned a malformed response: ${detail}.`, PROVIDER);
  const data = (response as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    throw malformed(`no "data" array in the response`);
  }
  if (data.length !== expected) {
    throw malformed(`it returned ${data.length} vectors for ${expected} inputs`);
  }
  const out: number[][] = new Array(expected);
  data.forEach((item: unknown, position) => {
    const rawIndex = (item as { index?: unknown } | null)?.index;
    // The spec always sends `index`; tolerate servers that omit it (then array order counts).
    const index = rawIndex === undefined ? position : rawIndex;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected) {
      throw malformed(`invalid index ${JSON.stringify(index)}`);
    }
    if (out[index] !== undefined) throw malformed(`index ${index} appears twice`);
    const vector = toVector((item as { embedding?: unknown }).embedding, index, malformed);
    checkDimension(vector.length);
    out[index] = vector;
  });
  return out;
}

function toVector(embedding: unknown, index: number, malformed: (detail: string) => EmbeddingError): number[] {
  let vector: number[];
  if (typeof embedding === "string") {
    const bytes = Buffer.from(embedding, "base64");
    if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) {
      throw malformed(`embedding ${index} is not valid base64 float32 data`);
    }
    // Copy to an aligned buffer: Float32Array needs a byte offset that is a multiple of 4.
    const aligned = new Uint8Array(bytes.byteLength);
    aligned.set(bytes);
    vector = Array.from(new Float32Array(aligned.buffer));
  } else if (Array.isArray(embedding)) {
    vector = embedding as number[];
  } else {
    throw malformed(`embedding ${index} is neither a number array nor base64`);
  }
  let norm = 0;
  for (const x of vector) {
    if (typeof x !== "number" || !Number.isFinite(x)) {
      throw malformed(`embedding ${index} contains a non-numeric value`);
    }
    norm += x * x;
  }
  if (norm === 0) throw malformed(`embedding ${index} is an all-zero vector`);
  return vector;
}
