// Plain ESM: the extraction worker runs it unbundled for large pages.
import { figureText, imageText } from "./alt-text.mjs";
import { CHROME, INVISIBLE, INVISIBLE_TAGS, KEEP, LANDMARK, attribute, imageAlt, readPage, scanPage } from "./html-chrome.mjs";
import { TextBuilder } from "./html-text.mjs";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { tableRow } from "./table-row.mjs";

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
 * How much of the page a read keeps: "article" inside the chosen main/article roots, "page" for the whole
 * page without chrome, "all" for everything but scripts, styles and head (the last resort for an all-chrome page).
 * @typedef {"article" | "page" | "all"} Mode
 */

/**
 * Visible text of an HTML document's article, one block per line, at most one blank line between blocks,
 * headings as `#` lines, list items as `-`/`1.` lines and a table's rows as `| cell | cell |` lines in
 * their order (the `<thead>` row, or else the first, is the header); a table that lays out the page is
 * read as text, its cells side by side. An image's alt text is written where the image is, as
 * `[Image: <alt>]`, and a figure's caption right after its image, as `[Figure: <caption>]`.
 * The page is read as a stream of tags and text, twice or more (once to find the article, once per
 * mode tried), and never held as a tree: memory is the page, the text and the open elements.
 * Throws LimitExceeded("too_much_text") as soon as the text passes `maxChars`.
 * @param {string} html
 * @param {number} [maxChars]
 * @returns {string}
 */
export function htmlToText(html, maxChars = Infinity) {
  const page = scanPage(html);
  if (page.roots.size) {
    const text = extract(html, "article", page, maxChars);
    if (text) return text;
  }
  // An empty main or article must not hide the rest of the page's text.
  return extract(html, "page", page, maxChars) || extract(html, "all", page, maxChars);
}

/** @typedef {import("./html-chrome.mjs").Attributes} Attributes */
/** @typedef {import("./html-text.mjs").Mark} Mark */
/** @typedef {ReturnType<typeof scanPage>} Page */
/** @typedef {{ ordered: boolean, next: number }} List */
/**
 * A `<figure>` being read: where the text after its last image ends (a caption read later joins it
 * there), and a caption read before any image, written after the first.
 * @typedef {{ image: Mark | null, caption: string }} Figure
 */
/**
 * An open element: whether its text is kept, what it writes when it closes, what its children inherit, and
 * what it is of the table being read as rows or of a figure (`collected`: anything inside a cell or a
 * figure's caption, whose text is collected on one line).
 * @typedef {{ kept: boolean, closeWith: number, endsMarker: boolean, inPre: boolean, list: List | null,
 *   part?: "table" | "row" | "cell" | "figure" | "caption", collected?: boolean, figure?: Figure }} Frame
 */
/**
 * The data table being read as rows: the cells of the row so far, and the text of the cell being read.
 * @typedef {{ row: string[] | null, cell: string[] | null }} TableRows
 */

/**
 * @param {string} html
 * @param {Mode} mode
 * @param {Page} page
 * @param {number} maxChars
 */
function extract(html, mode, page, maxChars) {
  const out = new TextBuilder(maxChars);
  // Outside the article's roots nothing is kept; with no roots to look for, the whole page is.
  /** @type {Frame[]} */
  const frames = [{ kept: mode !== "article", closeWith: 0, endsMarker: false, inPre: false, list: null }];
  // Elements still open inside a dropped one.
  let droppedDepth = 0;
  /** @type {TableRows | null} the outermost data table open; a table inside its cells is read as the cell's text */
  let table = null;
  /** @type {string[] | null} the text of the figure caption being read */
  let caption = null;
  // The cell or caption being read: at most one is, as neither starts inside the other.
  const collecting = () => table?.cell ?? caption;
  let collectedChars = 0;
  /** @param {string} text */
  const collect = (text) => {
    // Counted as it is read, so a huge cell stops the read as soon as plain text would.
    collectedChars += text.length;
    if (out.length + collectedChars > maxChars) throw new LimitExceeded("too_much_text");
    collecting()?.push(text);
  };
  const endRow = () => {
    // A row of empty cells (spacing) says nothing.
    if (table?.row?.some((c) => c.trim())) out.line(tableRow(table.row));
    if (table) table.row = null;
    collectedChars = 0;
  };
  /**
   * An image's alt text where the image is, within its paragraph, so that it is chunked with it.
   * @param {Attributes} attribs
   * @param {Figure | undefined} figure
   */
  const image = (attribs, figure) => {
    const text = imageText(imageAlt(attribs), attribute(attribs, "src"));
    if (text) out.inline(` ${text} `);
    if (!figure) return;
    if (figure.caption) out.inline(` ${figure.caption} `);
    figure.caption = "";
    figure.image = out.mark();
  };
  readPage(html, {
    open(tag, attribs, ordinal) {
      if (droppedDepth) return void droppedDepth++;
      const parent = frames[frames.length - 1];
      const root = mode === "article" && page.roots.has(ordinal);
      if (!parent.kept && !root) return void frames.push(parent);
      if (mode === "all" ? INVISIBLE_TAGS.has(tag) : dropped(ordinal, mode, page)) return void (droppedDepth = 1);
      if (collecting()) {
        // Inside a cell or a caption every block, row and cell only separates words: the row stays one line.
        const separates = PARAGRAPH_BLOCKS.has(tag) || LINE_BLOCKS.has(tag) || CELLS.has(tag);
        if (separates) collect(" ");
        if (tag === "img") collect(` ${imageText(imageAlt(attribs), attribute(attribs, "src"))} `);
        return void frames.push({ ...parent, closeWith: separates ? 1 : 0, endsMarker: false, part: undefined, collected: true });
      }
      if (table && tag === "tr") {
        endRow();
        table.row = [];
        return void frames.push({ ...parent, closeWith: 0, endsMarker: false, part: "row" });
      }
      if (table && CELLS.has(tag)) {
        table.row ??= [];
        table.cell = [];
        return void frames.push({ ...parent, closeWith: 0, endsMarker: false, part: "cell" });
      }
      if (tag === "figcaption" && parent.figure) {
        caption = [];
        return void frames.push({ ...parent, closeWith: 0, endsMarker: false, part: "caption" });
      }
      // A root starts afresh, as if it were the page.
      const inherited = root ? null : parent.list;
      let list = inherited;
      if (LISTS.has(tag)) list = { ordered: tag === "ol", next: startOf(attribute(attribs, "start"), tag) };
      const heading = HEADING.exec(tag);
      const closeWith = PARAGRAPH_BLOCKS.has(tag) ? 2 : LINE_BLOCKS.has(tag) ? 1 : 0;
      if (closeWith) out.breakLine(closeWith);
      else if (CELLS.has(tag)) out.space();
      // Markdown markers let the chunker find section starts and keep steps numbered.
      if (heading) out.marker(`${"#".repeat(Number(heading[1]))} `);
      else if (tag === "li") out.marker(inherited?.ordered ? `${inherited.next++}. ` : "- ");
      const inPre = (!root && parent.inPre) || tag === "pre";
      const rows = !table && tag === "table" && !page.layoutTables.has(ordinal);
      if (rows) table = { row: null, cell: null };
      const figure = tag === "figure" ? { image: null, caption: "" } : root ? undefined : parent.figure;
      if (tag === "img") image(attribs, figure);
      const part = rows ? "table" : tag === "figure" ? "figure" : undefined;
      frames.push({ kept: true, closeWith, endsMarker: closeWith > 0 && (Boolean(heading) || tag === "li"), inPre, list, part, figure });
    },
    close() {
      if (droppedDepth) return void droppedDepth--;
      const frame = frames.length > 1 ? frames.pop() : undefined;
      if (frame?.collected) {
        if (frame.closeWith) collect(" ");
        return;
      }
      if (frame?.part === "cell" && table?.cell) {
        table.row?.push(table.cell.join(""));
        table.cell = null;
        return;
      }
      if (frame?.part === "row") return endRow();
      if (frame?.part === "caption") {
        const text = figureText(caption?.join("") ?? "");
        caption = null;
        collectedChars = 0;
        // After its image, in the same paragraph, whatever blocks closed in between; before any image, it waits for one.
        if (text && frame.figure?.image) out.joinAt(frame.figure.image, ` ${text} `);
        else if (text && frame.figure) frame.figure.caption = `${frame.figure.caption} ${text}`.trim();
        return;
      }
      if (frame?.part === "figure" && frame.figure?.caption) out.inline(` ${frame.figure.caption} `);
      if (frame?.part === "table") {
        endRow();
        table = null;
      }
      if (!frame?.kept || !frame.closeWith) return;
      if (frame.endsMarker) out.marker("");
      out.breakLine(frame.closeWith);
    },
    text(text) {
      const frame = frames[frames.length - 1];
      if (droppedDepth || !frame.kept) return;
      if (collecting()) collect(text);
      else if (frame.inPre) out.raw(text.replace(/\u00a0/g, " "));
      else out.inline(text);
    },
  });
  return out
    .toString()
    .replace(/[^\S\n]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+/, "")
    .trimEnd();
}

/** @param {number} ordinal @param {Mode} mode @param {Page} page */
function dropped(ordinal, mode, page) {
  const kind = page.kinds.get(ordinal) ?? KEEP;
  // Inside the article, a header/footer holding a heading is the article's title block, not the site's.
  if (kind === LANDMARK) return !(mode === "article" && page.headed.has(ordinal));
  return kind === INVISIBLE || kind === CHROME;
}

/** @param {string | undefined} start @param {string} tag */
function startOf(start, tag) {
  const first = tag === "ol" ? Number.parseInt(start ?? "", 10) : NaN;
  return Number.isFinite(first) ? first : 1;
}
