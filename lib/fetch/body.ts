// Reads a response body: decoded (gzip, deflate, br), capped on the decoded bytes, and either
// kept whole or handed on chunk by chunk to a reader that keeps only what it needs.
import type http from "node:http";
import type { Duplex } from "node:stream";
import zlib from "node:zlib";

/** Most Content-Encodings undone on one body: each is a decoder stream, and servers send one, rarely two. */
export const MAX_ENCODINGS = 2;

export function sizeLimit(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number(mb.toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/** Decoders for a Content-Encoding list, in the order to apply them; null when one is unknown. */
function decoders(encodings: string[], first: Buffer): Duplex[] | null {
  const out: Duplex[] = [];
  // The last encoding named was applied last, so it comes off first.
  for (const encoding of [...encodings].reverse()) {
    // Lenient like browsers: a body cut short after its last full block still decodes.
    if (encoding === "gzip" || encoding === "x-gzip") out.push(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (encoding === "deflate") {
      // Some servers send raw deflate for "deflate"; a zlib stream's first byte says method 8.
      const zlibWrapped = out.length > 0 || (first[0] & 0x0f) === 8;
      out.push(
        zlibWrapped
          ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
          : zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH }),
      );
    } else if (encoding === "br") out.push(zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    else return null;
  }
  return out;
}

/**
 * Reads and decodes a response body, failing the moment the decoded bytes pass maxBytes. With
 * `sink`, each decoded chunk goes there and the body resolved is empty.
 */
export function readBody<E extends Error>(
  res: http.IncomingMessage,
  maxBytes: number,
  fail: (message: string) => E,
  sink?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const encodings = (res.headers["content-encoding"] ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s && s !== "identity");
  if (encodings.length > MAX_ENCODINGS) {
    res.destroy();
    return Promise.reject(fail(`it answered with ${encodings.length} content-encodings; at most ${MAX_ENCODINGS} are decoded`));
  }
  const length = Number(res.headers["content-length"]);
  if (res.headers["content-length"] !== undefined && Number.isFinite(length) && length > maxBytes) {
    res.destroy();
    return Promise.reject(fail(`the page is over ${sizeLimit(maxBytes)}`));
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let chain: Duplex[] | null = null;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      if (err) {
        res.destroy();
        for (const s of chain ?? []) s.destroy();
        reject(err);
      } else resolve(sink ? Buffer.alloc(0) : Buffer.concat(chunks, size));
    };
    const take = (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) return finish(fail(`the page is over ${sizeLimit(maxBytes)}`));
      if (sink) sink(chunk);
      else chunks.push(chunk);
    };
    const undecodable = () => fail(`its ${encodings.join(", ")} body could not be decoded`);

    res.on("data", (chunk: Buffer) => {
      if (settled) return;
      if (encodings.length === 0) return take(chunk);
      // Made on the first byte: an empty body (304, 204) has nothing to decode.
      if (!chain) {
        chain = decoders(encodings, chunk);
        if (!chain) return finish(fail(`it answered in an unsupported content-encoding (${encodings.join(", ")})`));
        for (let i = 0; i < chain.length; i++) {
          chain[i].on("error", () => finish(undecodable()));
          if (i + 1 < chain.length) chain[i].pipe(chain[i + 1]);
        }
        const last = chain[chain.length - 1];
        last.on("data", take);
        last.on("end", () => finish(null));
      }
      if (!chain[0].write(chunk)) {
        res.pause();
        chain[0].once("drain", () => res.resume());
      }
    });
    res.on("end", () => (chain ? chain[0].end() : finish(null)));
    res.on("error", (err) => finish(err));
    res.on("close", () => {
      if (!res.complete) finish(fail("the connection closed before the page was complete"));
    });
  });
}
