// Plain ESM: the extraction worker runs it unbundled for large pages.
import { parse, NodeType } from "node-html-parser";
import { CHROME, INVISIBLE, INVISIBLE_TAGS, KEEP, LANDMARK, scanPage } from "./html-chrome.mjs";
import { LimitExceeded } from "./limit-exceeded.mjs";

// Separated by a blank line so downstream chunkers can split on paragraphs.
const PARAGRAPH_BLOCKS = new Set([
  ..."p h1 h2 h3 h4 h5 h6 section article blockquote pre table ul ol dl".split(" "),
  ..."header footer main nav aside figure form fieldset details address hr".split(" "),
]);
const LINE_BLOCKS = new Set("div br li tr dt dd figcaption summary caption".split(" "));
const CELLS = new Set(["td", "th"]);
const LISTS = new Set(["ul", "ol", "menu"]);
const HEADING = /^h([1-6])$/;

/**
 * How much of the page a walk keeps: "article" inside the chosen main/article roots, "page" for the whole
 * page without chrome, "all" for everything but scripts, styles and head (the last resort for an all-chrome page).
 * @typedef {"article" | "page" | "all"} Mode
 */

/**
 * Visible text of an HTML document's article, one block per line, at most one blank line between blocks,
 * headings as `#` lines and list items as `-`/`1.` lines.
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
  const page = scanPage(root);
  if (page.roots.length) {
    const text = extract(page.roots, "article", page, maxChars);
    if (text) return text;
  }
  // An empty main or article must not hide the rest of the page's text.
  return extract([root], "page", page, maxChars) || extract([root], "all", page, maxChars);
}

/** @typedef {ReturnType<typeof scanPage>} Page */

/**
 * @param {Node[]} roots
 * @param {Mode} mode
 * @param {Page} page
 * @param {number} maxChars
 */
function extract(roots, mode, page, maxChars) {
  const out = new TextBuilder(maxChars);
  for (const root of roots) walk(root, out, mode, page);
  return out
    .toString()
    .replace(/[^\S\n]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+/, "")
    .trimEnd();
}

/** @typedef {import("node-html-parser").Node} Node */
/** @typedef {import("node-html-parser").HTMLElement} HTMLElement */
/** @typedef {{ ordered: boolean, next: number }} List */
/** @typedef {{ node: Node, inPre: boolean, list: List | null } | { closeWith: number, endsMarker: boolean }} Task */

// Iterative: a recursive walk overflows the stack on a few thousand nested elements.
/** @param {Node} root @param {TextBuilder} out @param {Mode} mode @param {Page} page */
function walk(root, out, mode, page) {
  /** @type {Task[]} */
  const stack = [{ node: root, inPre: false, list: null }];
  while (stack.length) {
    const task = /** @type {Task} */ (stack.pop());
    if ("closeWith" in task) {
      if (task.endsMarker) out.marker("");
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
    const el = /** @type {HTMLElement} */ (node);
    const tag = (el.rawTagName ?? "").toLowerCase();
    if (mode === "all" ? INVISIBLE_TAGS.has(tag) : dropped(el, mode, page)) continue;

    let list = task.list;
    if (LISTS.has(tag)) list = { ordered: tag === "ol", next: startOf(el, tag) };
    const heading = HEADING.exec(tag);
    const breaks = PARAGRAPH_BLOCKS.has(tag) ? 2 : LINE_BLOCKS.has(tag) ? 1 : 0;
    if (breaks) {
      out.breakLine(breaks);
      stack.push({ closeWith: breaks, endsMarker: Boolean(heading) || tag === "li" });
    } else if (CELLS.has(tag)) {
      out.space();
    }
    // Markdown markers let the chunker find section starts and keep steps numbered.
    if (heading) out.marker(`${"#".repeat(Number(heading[1]))} `);
    else if (tag === "li") out.marker(list?.ordered ? `${list.next++}. ` : "- ");
    const children = el.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], inPre: inPre || tag === "pre", list });
  }
}

/** @param {HTMLElement} el @param {Mode} mode @param {Page} page */
function dropped(el, mode, page) {
  const kind = page.kinds.get(el) ?? KEEP;
  // Inside the article, a header/footer holding a heading is the article's title block, not the site's.
  if (kind === LANDMARK) return !(mode === "article" && page.headed.has(el));
  return kind === INVISIBLE || kind === CHROME;
}

/** @param {HTMLElement} el @param {string} tag */
function startOf(el, tag) {
  const start = tag === "ol" ? Number.parseInt(el.getAttribute("start") ?? "", 10) : NaN;
  return Number.isFinite(start) ? start : 1;
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
