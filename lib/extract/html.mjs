// Plain ESM: the extraction worker runs it unbundled for large pages.
import { parse, NodeType } from "node-html-parser";
import { LimitExceeded } from "./limit-exceeded.mjs";

// Content a reader never sees; indexing it would pollute retrieval with code and boilerplate.
const SKIPPED = new Set(["head", "title", "script", "style", "noscript", "template", "svg"]);

// Separated by a blank line so downstream chunkers can split on paragraphs.
const PARAGRAPH_BLOCKS = new Set([
  ..."p h1 h2 h3 h4 h5 h6 section article blockquote pre table ul ol dl".split(" "),
  ..."header footer main nav aside figure form fieldset details address hr".split(" "),
]);
const LINE_BLOCKS = new Set("div br li tr dt dd figcaption summary caption".split(" "));
const CELLS = new Set(["td", "th"]);

/**
 * Visible text of an HTML document, one block per line, at most one blank line between blocks.
 * Throws LimitExceeded("too_much_text") as soon as the text passes `maxChars`.
 * @param {string} html
 * @param {number} [maxChars]
 * @returns {string}
 */
export function htmlToText(html, maxChars = Infinity) {
  // node-html-parser keeps doctypes and XML declarations as text nodes.
  const source = html.replace(/<!doctype[^>]*>/gi, "").replace(/<\?xml[^>]*\?>/gi, "");
  const root = parse(source, {
    comment: false,
    // Parsed as raw text so a `<` inside a script cannot open phantom elements; dropped in the walk.
    blockTextElements: { script: true, style: true, noscript: true, pre: true },
  });
  const out = new TextBuilder(maxChars);
  walk(root, out);
  return out
    .toString()
    .replace(/[^\S\n]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+/, "")
    .trimEnd();
}

/** @typedef {import("node-html-parser").Node} Node */
/** @typedef {{ node: Node, inPre: boolean } | { closeWith: number }} Task */

// Iterative: a recursive walk overflows the stack on a few thousand nested elements.
/** @param {Node} root @param {TextBuilder} out */
function walk(root, out) {
  /** @type {Task[]} */
  const stack = [{ node: root, inPre: false }];
  while (stack.length) {
    const task = /** @type {Task} */ (stack.pop());
    if ("closeWith" in task) {
      out.breakLine(task.closeWith);
      continue;
    }
    const { node, inPre } = task;
    if (node.nodeType === NodeType.TEXT_NODE) {
      const text = node.text;
      if (inPre) out.raw(text.replace(/\u00a0/g, " "));
      else out.inline(text);
      continue;
    }
    if (node.nodeType !== NodeType.ELEMENT_NODE) continue;
    const tag = (/** @type {import("node-html-parser").HTMLElement} */ (node).rawTagName ?? "").toLowerCase();
    if (SKIPPED.has(tag)) continue;

    const breaks = PARAGRAPH_BLOCKS.has(tag) ? 2 : LINE_BLOCKS.has(tag) ? 1 : 0;
    if (breaks) {
      out.breakLine(breaks);
      stack.push({ closeWith: breaks });
    } else if (CELLS.has(tag)) {
      out.space();
    }
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], inPre: inPre || tag === "pre" });
  }
}

/** Collapses whitespace the way a browser lays out inline text, except inside <pre>. */
class TextBuilder {
  /** @param {number} maxChars */
  constructor(maxChars) {
    this.maxChars = maxChars;
    /** @type {string[]} */
    this.parts = [];
    this.length = 0;
    this.last = "\n";
    // Starts high so leading blocks add no newlines at the top.
    this.trailingNewlines = 2;
  }

  /** @param {string} text */
  inline(text) {
    let collapsed = text.replace(/\s+/g, " ");
    if (this.last === " " || this.last === "\n") collapsed = collapsed.replace(/^ /, "");
    this.push(collapsed);
  }

  /** @param {string} text */
  raw(text) {
    this.push(text);
  }

  space() {
    if (this.last !== " " && this.last !== "\n") this.push(" ");
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
