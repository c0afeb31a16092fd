// Plain ESM, used by html.mjs (which the extraction worker runs unbundled for large pages).
import { LimitExceeded } from "./limit-exceeded.mjs";

/**
 * Where the text ended at one point, so that text read later can be joined there.
 * @typedef {{ count: number, length: number, last: string, trailingNewlines: number }} Mark
 */

/** Collapses whitespace the way a browser lays out inline text, except inside <pre>. */
export class TextBuilder {
  /** @param {number} maxChars */
  constructor(maxChars) {
    this.maxChars = maxChars;
    /** @type {string[]} */
    this.parts = [];
    this.length = 0;
    this.last = "\n";
    // Starts high so leading blocks add no newlines at the top.
    this.trailingNewlines = 2;
    // Written just before the block's first text, so an empty heading or item leaves no bare marker.
    this.pendingMarker = "";
  }

  /** @param {string} text */
  inline(text) {
    let collapsed = text.replace(/\s+/g, " ");
    if (this.last === " " || this.last === "\n") collapsed = collapsed.replace(/^ /, "");
    if (collapsed) this.flushMarker();
    this.push(collapsed);
  }

  /** @param {string} text */
  raw(text) {
    if (/\S/.test(text)) this.flushMarker();
    this.push(text);
  }

  space() {
    if (this.last !== " " && this.last !== "\n") this.push(" ");
  }

  /** @param {string} line a whole line, written as it is (a table row); a pending marker waits for the next text */
  line(line) {
    this.breakLine(1);
    this.push(line);
    this.breakLine(1);
  }

  /** @param {string} marker e.g. "## " or "2. "; "" cancels a marker the block never used */
  marker(marker) {
    this.pendingMarker = marker;
  }

  /**
   * Ensures the output ends with `count` newlines, so adjacent blocks do not stack breaks.
   * @param {number} count
   */
  breakLine(count) {
    if (count > this.trailingNewlines) this.push("\n".repeat(count - this.trailingNewlines));
  }

  toString() {
    return this.parts.join("");
  }

  /** @returns {Mark} where the text ends now */
  mark() {
    return { count: this.parts.length, length: this.length, last: this.last, trailingNewlines: this.trailingNewlines };
  }

  /**
   * Writes `text` inline at `mark` when nothing but line breaks and spaces came after it, else here.
   * @param {Mark} mark
   * @param {string} text
   */
  joinAt(mark, text) {
    if (this.parts.slice(mark.count).every((part) => !/\S/.test(part))) {
      this.parts.length = mark.count;
      ({ length: this.length, last: this.last, trailingNewlines: this.trailingNewlines } = mark);
    }
    this.inline(text);
  }

  flushMarker() {
    const marker = this.pendingMarker;
    this.pendingMarker = "";
    this.push(marker);
  }

  /** @param {string} text */
  push(text) {
    if (!text) return;
    this.length += text.length;
    if (this.length > this.maxChars) throw new LimitExceeded("too_much_text");
    this.parts.push(text);
    this.last = text[text.length - 1];
    const newlines = text.length - text.replace(/\n+$/, "").length;
    this.trailingNewlines = newlines === text.length ? this.trailingNewlines + newlines : newlines;
  }
}
