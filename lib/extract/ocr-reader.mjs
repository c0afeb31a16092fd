// Plain ESM, run in the extraction worker: the text of an image, or of a PDF page rendered as one,
// by OCR. tesseract.js's engine (WebAssembly) runs in this very thread, driven by the messages its
// own worker script takes (tesseract.js/src/worker-script), not in a thread of tesseract.js's own:
// the pool's deadline then stops it like any reader by terminating this worker, and the language
// data comes from each language's own npm package, read from disk (fetching is refused outright).
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";
import { languageFolders } from "./ocr-languages.mjs";
import { renderPdfPage } from "./pdf-reader.mjs";

const require = createRequire(import.meta.url);
const engine = require("tesseract.js/src/worker-script/index.js");
const getCore = require("tesseract.js/src/worker-script/node/getCore.js");

// tesseract.js's engine modes: the LSTM recogniser alone, its default.
const LSTM_ONLY = 1;

/** The engine failed (an image it cannot decode, a WebAssembly abort): its worker is not reused. */
export class OcrFailed extends Error {
  name = "OcrFailed";
}

/** OCR_LANGUAGES names languages whose data packages are not installed. */
export class OcrLanguagesMissing extends Error {
  name = "OcrLanguagesMissing";
  /** @param {string[]} missing the packages */
  constructor(missing) {
    super(`missing OCR data: ${missing.join(", ")}`);
    this.missing = missing;
  }
}

engine.setAdapter({
  // Given `true` for the LSTM-only build by the engine's `load`, where getCore expects an engine mode.
  getCore: (/** @type {boolean} */ lstmOnly, /** @type {unknown} */ corePath, /** @type {unknown} */ res) =>
    getCore(lstmOnly ? LSTM_ONLY : 0, corePath, res),
  gunzip: gunzipSync,
  fetch: () => Promise.reject(new Error("OCR reads its language data from node_modules; it fetches nothing.")),
  readCache: (/** @type {string} */ file) => fs.readFile(file),
  writeCache: () => Promise.resolve(),
  deleteCache: () => Promise.resolve(),
  checkCache: () => Promise.resolve(false),
});

let sent = 0;

/**
 * One message to the engine, answered when it resolves or rejects (its progress reports are dropped).
 * @param {string} action
 * @param {object} payload
 * @returns {Promise<any>}
 */
function send(action, payload) {
  return new Promise((resolve, reject) => {
    engine.dispatchHandlers({ workerId: "ocr", jobId: `ocr-${++sent}`, action, payload }, (/** @type {any} */ reply) => {
      if (reply.status === "resolve") resolve(reply.data);
      else if (reply.status === "reject") reject(new OcrFailed(String(reply.data).replace(/^Error: /, "")));
    });
  });
}

// What this thread's engine has: its code, the languages whose data it holds, the ones it reads.
const state = { loaded: false, data: new Set(), reading: "" };

/** @param {string} languages "eng+deu" */
async function readyFor(languages) {
  if (state.reading === languages) return;
  const { folders, missing } = languageFolders(languages);
  if (missing.length) throw new OcrLanguagesMissing(missing);
  if (!state.loaded) {
    await send("load", { options: { lstmOnly: true, logging: false } });
    state.loaded = true;
  }
  for (const [code, folder] of Object.entries(folders)) {
    if (state.data.has(code)) continue;
    await send("loadLanguage", { langs: code, options: { langPath: folder, cacheMethod: "none", gzip: true, lstmOnly: true } });
    state.data.add(code);
  }
  await send("initialize", { langs: languages, oem: LSTM_ONLY, config: {} });
  state.reading = languages;
}

/**
 * @typedef {{ source: "image", bytes: Uint8Array, languages: string }
 *   | { source: "pdf", bytes: Uint8Array, languages: string, page: number, maxPixels: number, maxStreamBytes: number }} OcrJob
 */

/**
 * What OCR reads in the job's image (or PDF page), and its mean confidence, 0-100.
 * @param {OcrJob} job
 * @returns {Promise<{ text: string, confidence: number }>}
 */
export async function readByOcr(job) {
  await readyFor(job.languages);
  const image = job.source === "pdf" ? await renderPdfPage(job.bytes, job) : job.bytes;
  const result = await send("recognize", { image, options: {}, output: { text: true } });
  return { text: String(result.text ?? ""), confidence: Math.round(Number(result.confidence) || 0) };
}
