// Plain ESM: where OCR finds each language's data, in its npm package. Used unbundled by the
// extraction worker and by the launcher's start-up check (scripts/start.mjs), never fetched.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

// The integer-quantised LSTM models, which tesseract.js itself loads for its default (LSTM-only)
// engine: a quarter of the size of the package's other folder, which adds the legacy engine's data.
const FOLDERS = ["4.0.0_best_int", "4.0.0"];

/** The npm package that holds a language's data. */
export const languagePackage = (/** @type {string} */ code) => `@tesseract.js-data/${code}`;

/**
 * The folder holding `<code>.traineddata.gz` for each language of `languages` ("eng+deu"), and
 * the packages of those that are not installed.
 * @param {string} languages
 * @returns {{ folders: Record<string, string>, missing: string[] }}
 */
export function languageFolders(languages) {
  /** @type {Record<string, string>} */
  const folders = {};
  /** @type {string[]} */
  const missing = [];
  for (const code of languages.split("+")) {
    let root = null;
    try {
      root = path.dirname(require.resolve(`${languagePackage(code)}/package.json`));
    } catch {
      // Not installed: named below.
    }
    const folder = root && FOLDERS.map((f) => path.join(root, f)).find((f) => fs.existsSync(path.join(f, `${code}.traineddata.gz`)));
    if (folder) folders[code] = folder;
    else missing.push(languagePackage(code));
  }
  return { folders, missing };
}

/**
 * What is wrong with OCR_LANGUAGES on this install, in words that say how to fix it; null when
 * every language's package is installed.
 * @param {string} languages
 */
export function languagesProblem(languages) {
  const { missing } = languageFolders(languages);
  if (!missing.length) return null;
  const are = missing.length === 1 ? "is" : "are";
  return `OCR_LANGUAGES is "${languages}", but ${missing.join(" and ")} ${are} not installed: run npm install ${missing.join(" ")}, or leave the language out.`;
}
