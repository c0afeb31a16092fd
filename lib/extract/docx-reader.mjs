// Plain ESM, run in the extraction worker: the raw text of a .docx without inflating a bomb.
import mammoth from "mammoth";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { ZipBudgetExceeded, readDirectory, readEntry } from "./zip.mjs";

// The parts mammoth reads for raw text; images and other media are never inflated.
const XML_PART = /\.(xml|rels)$/i;

/**
 * Raw text of a Word document, paragraphs separated by a blank line (mammoth's format).
 * Refuses, before inflating anything, an archive whose XML parts declare more than `maxXmlBytes`,
 * and stops inflating at that budget whatever the directory declares.
 * @param {Uint8Array} bytes
 * @param {{ maxChars: number, maxXmlBytes: number }} limits
 * @returns {Promise<string>}
 */
export async function readDocxText(bytes, { maxChars, maxXmlBytes }) {
  const entries = readDirectory(bytes);
  let declared = 0;
  for (const entry of entries.values()) if (XML_PART.test(entry.name)) declared += entry.size;
  if (declared > maxXmlBytes) throw new LimitExceeded("too_much_text");

  let budget = maxXmlBytes;
  let overBudget = false;
  // mammoth reads the package through this interface (its `file` input) instead of JSZip,
  // which would inflate whatever size an entry really has.
  const file = {
    /** @param {string} name */
    exists: (name) => entries.has(name),
    /** @param {string} name @param {string} [encoding] */
    read: async (name, encoding) => {
      const entry = entries.get(name);
      if (!entry) throw new Error(`${name} is missing from the archive`);
      let data;
      try {
        data = readEntry(bytes, entry, budget);
      } catch (err) {
        if (err instanceof ZipBudgetExceeded) overBudget = true;
        throw err;
      }
      budget -= data.length;
      if (encoding === "base64") return Buffer.from(data).toString("base64");
      return encoding ? new TextDecoder(encoding).decode(data) : data;
    },
  };

  let text;
  try {
    ({ value: text } = await mammoth.extractRawText(/** @type {any} */ ({ file })));
  } catch (err) {
    // mammoth may wrap what the reader threw; the flag says what really happened.
    if (overBudget) throw new LimitExceeded("too_much_text");
    throw err;
  }
  if (text.length > maxChars) throw new LimitExceeded("too_much_text");
  return text;
}
