// The extraction worker (see pool.ts). Plain ESM that Next never bundles: it is loaded from the
// source tree at run time and imports only node builtins, these readers and server-external packages.
import { parentPort } from "node:worker_threads";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { ZipDamaged } from "./zip.mjs";

/**
 * @typedef {import("./pool").ExtractJob} ExtractJob
 * @typedef {import("./pool").ExtractReply} ExtractReply
 */

/** @param {ExtractJob} job @returns {Promise<string>} */
async function run(job) {
  switch (job.kind) {
    case "pdf":
      return (await import("./pdf-reader.mjs")).readPdfText(job.bytes, job);
    case "docx":
      return (await import("./docx-reader.mjs")).readDocxText(job.bytes, job);
    case "html":
      return (await import("./html.mjs")).htmlToText(job.html, job.maxChars);
  }
}

/** @param {unknown} err @returns {ExtractReply} */
function failure(err) {
  // A parser stopped at a limit may still have work queued: this worker is not reused.
  if (err instanceof LimitExceeded) return { ok: false, failure: "limit", code: err.code, pages: err.pages, retire: true };
  if (err instanceof ZipDamaged) return { ok: false, failure: "damaged_zip" };
  const error = err instanceof Error ? err : new Error(String(err));
  return { ok: false, failure: "parse", name: error.name, message: error.message };
}

parentPort?.on("message", async (/** @type {ExtractJob} */ job) => {
  // The pool starts the job's deadline on this, so the time this worker took to boot is not counted.
  parentPort?.postMessage({ started: true });
  /** @type {ExtractReply} */
  let reply;
  try {
    reply = { ok: true, text: await run(job) };
  } catch (err) {
    reply = failure(err);
  }
  parentPort?.postMessage(reply);
});
