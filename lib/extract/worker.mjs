// The extraction worker (see pool.ts). Plain ESM that Next never bundles: it is loaded from the
// source tree at run time and imports only node builtins, these readers and server-external packages.
import { parentPort } from "node:worker_threads";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { ZipDamaged } from "./zip.mjs";

/**
 * @typedef {import("./pool").ExtractJob} ExtractJob
 * @typedef {import("./pool").ExtractReply} ExtractReply
 */

/** @param {ExtractJob} job @returns {Promise<{ text: string, confidence?: number } | { pages: string[], scanned: number[] }>} */
async function run(job) {
  switch (job.kind) {
    case "pdf":
      return (await import("./pdf-reader.mjs")).readPdfPages(job.bytes, job);
    case "docx":
      return { text: await (await import("./docx-reader.mjs")).readDocxText(job.bytes, job) };
    case "html":
      return { text: (await import("./html.mjs")).htmlToText(job.html, job.maxChars) };
    case "ocr":
      return (await import("./ocr-reader.mjs")).readByOcr(job);
  }
}

/** @param {unknown} err @returns {ExtractReply} */
function failure(err) {
  // A parser stopped at a limit may still have work queued: this worker is not reused.
  if (err instanceof LimitExceeded) return { ok: false, failure: "limit", code: err.code, pages: err.pages, retire: true };
  if (err instanceof ZipDamaged) return { ok: false, failure: "damaged_zip" };
  if (err instanceof Error && err.name === "OcrLanguagesMissing") {
    return { ok: false, failure: "ocr_languages", missing: /** @type {{ missing: string[] }} */ (/** @type {unknown} */ (err)).missing };
  }
  const error = err instanceof Error ? err : new Error(String(err));
  // An OCR engine that failed mid-way (a WebAssembly abort leaves it unusable) is not reused.
  if (error.name === "OcrFailed") return { ok: false, failure: "parse", name: error.name, message: error.message, retire: true };
  return { ok: false, failure: "parse", name: error.name, message: error.message };
}

parentPort?.on("message", async (/** @type {ExtractJob} */ job) => {
  // The pool starts the job's deadline on this, so the time this worker took to boot is not counted.
  parentPort?.postMessage({ started: true });
  /** @type {ExtractReply} */
  let reply;
  try {
    reply = { ok: true, ...(await run(job)) };
  } catch (err) {
    reply = failure(err);
  }
  parentPort?.postMessage(reply);
});
