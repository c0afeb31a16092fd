// Plain ESM, run in the extraction worker: the raw text of a .docx without inflating a bomb,
// read as a stream of XML tags so that memory is the document part's bytes and the text only.
import dingbatToUnicode from "dingbat-to-unicode";
import { figureText, imageText } from "./alt-text.mjs";
import { readXml } from "./docx-xml.mjs";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { tableRow } from "./table-row.mjs";
import { ZipBudgetExceeded, readDirectory, readEntry } from "./zip.mjs";

// The parts that can hold the document's text or say where it is; images and other media are never inflated.
const XML_PART = /\.(xml|rels)$/i;

// How a ZIP that is not a Word document (xlsx, odt, epub, ...) fails; docx.ts recognises the message.
const NOT_A_DOCX = "Could not find main document part";

const OFFICE_DOCUMENT =
  /^(?:http:\/\/schemas\.openxmlformats\.org\/officeDocument\/2006\/relationships|http:\/\/purl\.oclc\.org\/ooxml\/officeDocument\/relationships)\/officeDocument$/;

// Elements whose children are read as document content: runs, links, tracked insertions and moves,
// content controls' content, drawings (inline or anchored, for their pictures' alt text), VML shapes
// and text boxes. Anything not named here or handled below (tables, deleted text, field instructions,
// properties, equations) adds no text.
const CONTAINERS = new Set(
  (
    "w:body w:r w:hyperlink w:customXml w:ins w:moveFromRangeEnd w:moveFromRangeStart w:moveTo " +
    "w:moveToRangeEnd w:moveToRangeStart w:object w:smartTag w:drawing wp:inline wp:anchor w:sdtContent " +
    "mc:Fallback v:roundrect v:shape v:textbox v:group v:rect w:txbxContent"
  ).split(" "),
);
const CHARACTERS = new Map([
  ["w:tab", "\t"],
  ["w:noBreakHyphen", "\u2011"],
  ["w:softHyphen", "\u00ad"],
  // A line, page or column break inside a paragraph still separates the words on either side.
  ["w:br", "\n"],
  ["w:cr", "\n"],
]);

// Elements that open a frame of their own kind (see Frame in documentText).
/** @type {Map<string, Frame["kind"]>} */
const FRAME_KINDS = new Map([
  ["w:p", "paragraph"],
  ["w:pPr", "paragraphProps"],
  ["w:t", "text"],
  ["w:tr", "row"],
  ["w:trPr", "rowProps"],
  ["w:sdt", "contentControl"],
  ["w:sdtPr", "controlProps"],
  ["mc:AlternateContent", "alternate"],
]);

/**
 * Raw text of a Word document, each paragraph followed by a blank line; a text box's paragraphs follow
 * the paragraph that anchors it; a table's rows are `| cell | cell |` lines, its first row first (a
 * table inside a cell is part of that cell's text); a picture's alt text is `[Image: <alt>]` where the
 * picture is, and a caption after a picture's paragraph `[Figure: <caption>]` at its end. Refuses, before inflating anything, an archive
 * whose XML parts declare more than `maxXmlBytes`, stops inflating at that budget whatever the
 * directory declares, and stops reading as soon as the text passes `maxChars`.
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
  /** @param {string} name */
  const inflate = (name) => {
    const entry = entries.get(name);
    if (!entry) throw new Error(`${name} is missing from the archive`);
    let data;
    try {
      data = readEntry(bytes, entry, budget);
    } catch (err) {
      if (err instanceof ZipBudgetExceeded) throw new LimitExceeded("too_much_text");
      throw err;
    }
    budget -= data.length;
    return data;
  };

  const main = mainDocumentPath(entries, inflate);
  if (!main) throw new Error(`${NOT_A_DOCX}. Are you sure this is a valid .docx file?`);
  const styles = `${main.slice(0, main.lastIndexOf("/") + 1)}styles.xml`;
  return documentText(inflate(main), maxChars, entries.has(styles) ? captionStyles(inflate(styles)) : new Set([CAPTION]));
}

// The id Word gives its Caption style in English; its name, whatever the language, is "caption".
const CAPTION = "Caption";

/**
 * The ids of the paragraph styles that are Word's Caption or based on it: Word in another language
 * gives the style another id ("Beschriftung"), and LibreOffice captions figures with a style based on it.
 * @param {Uint8Array} xml the styles part
 * @returns {Set<string>}
 */
function captionStyles(xml) {
  const captions = new Set([CAPTION]);
  /** @type {Map<string, string>} */
  const basedOn = new Map();
  /** @type {string | null} */
  let style = null;
  readXml(xml, {
    open(name, attribs) {
      if (name === "w:style") style = attribs["w:type"] === "paragraph" ? (attribs["w:styleId"] ?? null) : null;
      else if (style && name === "w:name" && attribs["w:val"]?.toLowerCase() === "caption") captions.add(style);
      else if (style && name === "w:basedOn") basedOn.set(style, attribs["w:val"] ?? "");
    },
  });
  for (const id of basedOn.keys()) {
    const seen = new Set();
    for (let base = basedOn.get(id); base && !seen.has(base); base = basedOn.get(base)) {
      seen.add(base);
      if (captions.has(base)) captions.add(id);
    }
  }
  return captions;
}

/**
 * The main document part the package's relationships name, else Word's usual path.
 * @param {Map<string, unknown>} entries
 * @param {(name: string) => Uint8Array} inflate
 * @returns {string | null}
 */
function mainDocumentPath(entries, inflate) {
  /** @type {string[]} */
  const targets = [];
  if (entries.has("_rels/.rels")) {
    readXml(inflate("_rels/.rels"), {
      open(name, attribs) {
        if (name === "rel:Relationship" && OFFICE_DOCUMENT.test(attribs.Type ?? "")) targets.push(partPath(attribs.Target ?? ""));
      },
    });
  }
  return [...targets, "word/document.xml"].find((path) => entries.has(path)) ?? null;
}

/** @param {string} target a relationship target, relative to the package root */
function partPath(target) {
  /** @type {string[]} */
  const parts = [];
  for (const part of target.split("/")) {
    if (part === "..") parts.pop();
    else if (part && part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/**
 * What an open element does with what it contains.
 * - content: its children are read as document content
 * - paragraph: content, then a blank line (none if its mark is deleted: it runs on into the next one)
 * - text: its text is the document's (w:t)
 * - alternate: only its mc:Fallback is read, the form every reader understands
 * - textBox: content that is written after the paragraph that anchors it (w:pict)
 * - table: content, then a line break after its rows (a table inside a cell is plain content)
 * - row: a table row, dropped if its properties mark it deleted; `cells` collects its cells' text
 *   (absent for a row of a table inside a cell, whose text is the cell's)
 * - cell: content written aside, then added to its row's cells
 * - contentControl: content; a check box control drops its first character (the box glyph)
 * - props / props-rPr: paragraph, row or control properties, read only for the markers above
 * - picture / pictureProps: a drawing's properties (wp:docPr) and what they hold: its alt text (`text`)
 *   is written where the drawing is, unless they mark it decorative; a paragraph that holds one is
 *   marked `picture`, and one in a caption style `caption`, its text written aside
 * @typedef {{ kind: "root" | "content" | "paragraph" | "text" | "alternate" | "textBox" | "table" | "row" | "cell"
 *   | "contentControl" | "paragraphProps" | "paragraphRunProps" | "rowProps" | "controlProps" | "picture" | "pictureProps",
 *   deleted?: boolean, checkbox?: boolean, text?: string, after?: string[], cells?: string[], picture?: boolean,
 *   caption?: boolean }} Frame
 */

/**
 * @param {Uint8Array} xml the main document part
 * @param {number} maxChars
 * @param {Set<string>} captions the ids of the caption styles
 */
function documentText(xml, maxChars, captions) {
  /** @type {string[][]} text boxes' and table cells' text is written aside, then after their paragraph or in their row */
  const outputs = [[]];
  let written = 0;
  let sawBody = false;
  // After a picture's alt text, the next text is a word of its own.
  let spaceNext = false;
  /** @param {string} text */
  const write = (text) => {
    if (!text) return;
    spaceNext = false;
    written += text.length;
    if (written > maxChars) throw new LimitExceeded("too_much_text");
    outputs[outputs.length - 1].push(text);
  };
  /** Alt text or a caption, a word of its own in the text around it. @param {string} text */
  const writeWord = (text) => {
    if (!text) return;
    const last = outputs[outputs.length - 1].at(-1)?.at(-1);
    write(last && /\S/.test(last) ? ` ${text}` : text);
    spaceNext = true;
  };
  /** @type {{ output: string[], end: number } | null} where the text of the last paragraph that held a picture ends */
  let figure = null;
  /** Text, as opposed to tabs: the first of it in a check box control is the box. @param {string} text */
  const writeText = (text) => {
    if (!text) return;
    for (let i = frames.length - 1; i >= 0; i--) {
      const frame = frames[i];
      if (frame.kind === "contentControl" && frame.checkbox) {
        frame.checkbox = false;
        return;
      }
    }
    write(spaceNext && /^\S/.test(text) ? ` ${text}` : text);
  };
  /** @type {Frame[]} */
  const frames = [];
  // Elements still open inside one that adds no text.
  let skipped = 0;
  // Table cells open: a table inside one is read as the cell's text.
  let cellDepth = 0;
  const top = () => frames[frames.length - 1];

  readXml(xml, {
    open(name, attribs) {
      if (skipped) return void skipped++;
      const parent = top();
      /** @type {Frame | null} */
      let frame = null;
      if (!parent) frame = { kind: "root" };
      else if (parent.kind === "root") {
        if (name === "w:body") {
          sawBody = true;
          frame = { kind: "content" };
        }
      } else if (parent.kind === "paragraphProps") {
        if (name === "w:rPr") frame = { kind: "paragraphRunProps" };
        else if (name === "w:pStyle" && captions.has(attribs["w:val"] ?? "")) startCaption();
      } else if (parent.kind === "picture" || parent.kind === "pictureProps") {
        // Word marks a decorative picture in an extension of its properties; what alt text it has is not read.
        const decorative = name === "adec:decorative" && /^(?:1|true)$/.test(attribs.val ?? "");
        const picture = frames.findLast((f) => f.kind === "picture");
        if (decorative && picture) picture.text = "";
        frame = { kind: "pictureProps" };
      } else if (parent.kind === "paragraphRunProps" || parent.kind === "rowProps") {
        if (name === "w:del") markDeleted(parent.kind === "rowProps" ? "row" : "paragraph");
      } else if (parent.kind === "controlProps") {
        if (name === "wordml:checkbox") {
          const control = frames.findLast((f) => f.kind === "contentControl");
          if (control) control.checkbox = true;
        }
      } else if (parent.kind === "alternate") {
        if (name === "mc:Fallback") frame = { kind: "content" };
      } else if (parent.kind === "row" && parent.deleted) {
        // A deleted row's cells are not read.
      } else if (parent.kind !== "text") {
        frame = contentFrame(name, attribs);
      }
      if (frame) frames.push(frame);
      else skipped = 1;
    },
    close() {
      if (skipped) return void skipped--;
      const frame = /** @type {Frame} */ (frames.pop());
      if (frame.kind === "text") writeText(frame.text ?? "");
      else if (frame.kind === "picture") writeWord(frame.text ?? "");
      else if (frame.kind === "paragraph") {
        if (frame.caption) endCaption();
        const output = outputs[outputs.length - 1];
        if (frame.picture) figure = { output, end: output.length };
        if (!frame.deleted) write("\n\n");
        for (const text of frame.after ?? []) write(text);
      } else if (frame.kind === "textBox") {
        const text = /** @type {string[]} */ (outputs.pop()).join("");
        written -= text.length;
        const paragraph = frames.findLast((f) => f.kind === "paragraph");
        if (paragraph) (paragraph.after ??= []).push(text);
        else write(text);
      } else if (frame.kind === "cell") {
        const text = /** @type {string[]} */ (outputs.pop()).join("");
        written -= text.length;
        cellDepth--;
        frames.findLast((f) => f.kind === "row")?.cells?.push(text);
      } else if (frame.kind === "row") {
        // A row of empty cells (spacing, merged cells) says nothing.
        if (!frame.deleted && frame.cells?.some((c) => c.trim())) write(`${tableRow(frame.cells)}\n`);
      } else if (frame.kind === "table") {
        write("\n");
      }
    },
    text(text) {
      const frame = top();
      if (!skipped && frame?.kind === "text") frame.text = (frame.text ?? "") + text;
    },
  });
  if (!sawBody) throw new Error("its document part has no body");
  return outputs[0].join("");

  /** A paragraph in a caption style: its text is written aside, to be joined to its picture's paragraph. */
  function startCaption() {
    const paragraph = frames.findLast((f) => f.kind === "paragraph");
    if (!paragraph || paragraph.caption) return;
    paragraph.caption = true;
    outputs.push([]);
  }

  /**
   * A caption's text as `[Figure: <caption>]` at the end of the paragraph before, when that paragraph
   * held a picture and only empty paragraphs came between; any other caption (a table's) stays as it is.
   */
  function endCaption() {
    const text = /** @type {string[]} */ (outputs.pop()).join("");
    written -= text.length;
    const output = outputs[outputs.length - 1];
    if (figure?.output !== output || output.slice(figure.end).some((part) => /\S/.test(part))) return void write(text);
    for (const part of output.splice(figure.end)) written -= part.length;
    writeWord(figureText(text));
  }

  /** @param {"row" | "paragraph"} kind */
  function markDeleted(kind) {
    const owner = frames.findLast((f) => f.kind === kind);
    if (owner) owner.deleted = true;
  }

  /**
   * @param {string} name
   * @param {Record<string, string>} attribs
   * @returns {Frame | null}
   */
  function contentFrame(name, attribs) {
    if (CONTAINERS.has(name)) return { kind: "content" };
    const character = CHARACTERS.get(name);
    if (character !== undefined) {
      write(character);
      return { kind: "content" };
    }
    if (name === "w:tbl") return { kind: cellDepth ? "content" : "table" };
    if (name === "wp:docPr") {
      const paragraph = frames.findLast((f) => f.kind === "paragraph");
      if (paragraph) paragraph.picture = true;
      const hidden = /^(?:1|true)$/.test(attribs.hidden ?? "");
      return { kind: "picture", text: hidden ? "" : imageText(attribs.descr?.trim() ? attribs.descr : attribs.title) };
    }
    if (name === "w:tc") {
      const row = frames.findLast((f) => f.kind === "row" || f.kind === "cell");
      if (row?.kind !== "row" || !row.cells) return { kind: "content" };
      outputs.push([]);
      cellDepth++;
      return { kind: "cell" };
    }
    const kind = FRAME_KINDS.get(name);
    if (kind === "row") return { kind, ...(cellDepth ? {} : { cells: [] }) };
    if (kind) return { kind };
    if (name === "w:pict") {
      outputs.push([]);
      return { kind: "textBox" };
    }
    if (name === "w:sym") {
      writeText(symbol(attribs["w:font"], attribs["w:char"]));
      return { kind: "content" };
    }
    return null;
  }
}

/**
 * The Unicode character of a symbol in a symbol font (Symbol, Wingdings, ...); "" when it has none.
 * @param {string | undefined} font
 * @param {string | undefined} char hex code, e.g. "F0E0"
 */
function symbol(font, char) {
  if (!font || !char) return "";
  const found = dingbatToUnicode.hex(font, char) ?? (/^F0..$/i.test(char) ? dingbatToUnicode.hex(font, char.slice(2)) : undefined);
  return found?.string ?? "";
}
