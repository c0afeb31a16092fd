// Plain ESM, run in the extraction worker: the raw text of a .docx without inflating a bomb,
// read as a stream of XML tags so that memory is the document part's bytes and the text only.
import dingbatToUnicode from "dingbat-to-unicode";
import { Parser } from "htmlparser2";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { tableRow } from "./table-row.mjs";
import { ZipBudgetExceeded, readDirectory, readEntry } from "./zip.mjs";

// The parts that can hold the document's text or say where it is; images and other media are never inflated.
const XML_PART = /\.(xml|rels)$/i;

// How a ZIP that is not a Word document (xlsx, odt, epub, ...) fails; docx.ts recognises the message.
const NOT_A_DOCX = "Could not find main document part";

// Namespaces by URI, named by the prefix Word itself writes, in the transitional and the strict format:
// a document may bind any prefix to them.
const NAMESPACES = new Map([
  ["http://schemas.openxmlformats.org/wordprocessingml/2006/main", "w"],
  ["http://purl.oclc.org/ooxml/wordprocessingml/main", "w"],
  ["http://schemas.openxmlformats.org/markup-compatibility/2006", "mc"],
  ["urn:schemas-microsoft-com:vml", "v"],
  ["http://schemas.microsoft.com/office/word/2010/wordml", "wordml"],
  ["http://schemas.openxmlformats.org/package/2006/relationships", "rel"],
]);

const OFFICE_DOCUMENT =
  /^(?:http:\/\/schemas\.openxmlformats\.org\/officeDocument\/2006\/relationships|http:\/\/purl\.oclc\.org\/ooxml\/officeDocument\/relationships)\/officeDocument$/;

// Elements whose children are read as document content: runs, links, tracked insertions and moves,
// content controls' content, drawings, VML shapes and text boxes. Anything not named here or handled
// below (tables, deleted text, field instructions, properties, equations) adds no text.
const CONTAINERS = new Set(
  (
    "w:body w:r w:hyperlink w:customXml w:ins w:moveFromRangeEnd w:moveFromRangeStart w:moveTo " +
    "w:moveToRangeEnd w:moveToRangeStart w:object w:smartTag w:drawing w:sdtContent mc:Fallback " +
    "v:roundrect v:shape v:textbox v:group v:rect w:txbxContent"
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

// Inflated document XML is decoded and read this many bytes at a time.
const READ_BYTES = 1 << 20;

/**
 * Raw text of a Word document, each paragraph followed by a blank line; a text box's paragraphs follow
 * the paragraph that anchors it; a table's rows are `| cell | cell |` lines, its first row first (a
 * table inside a cell is part of that cell's text). Refuses, before inflating anything, an archive
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
  return documentText(inflate(main), maxChars);
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
 * @typedef {{ open(name: string, attribs: Record<string, string>): void, close?(name: string): void, text?(text: string): void }} XmlHandler
 * Element and attribute names come with the prefix of NAMESPACES ("w:p", "w:val"), whatever prefix
 * the document binds; names in other namespaces come as "{uri}local" and unprefixed attributes as they are.
 */

/**
 * Reads XML bytes as a stream of tags and text.
 * @param {Uint8Array} data
 * @param {XmlHandler} handler
 */
function readXml(data, handler) {
  /** @type {Array<Map<string, string> | null>} prefix bindings each open element adds */
  const scopes = [];
  /** @param {string} prefix */
  const uriOf = (prefix) => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const uri = scopes[i]?.get(prefix);
      if (uri !== undefined) return uri;
    }
    return prefix === "xml" ? "http://www.w3.org/XML/1998/namespace" : "";
  };
  /** @param {string} qualified @param {boolean} attribute */
  const resolve = (qualified, attribute) => {
    const colon = qualified.indexOf(":");
    if (colon < 0 && attribute) return qualified;
    const prefix = colon < 0 ? "" : qualified.slice(0, colon);
    const local = qualified.slice(colon + 1);
    const uri = uriOf(prefix);
    const known = NAMESPACES.get(uri);
    return known ? `${known}:${local}` : uri ? `{${uri}}${local}` : local;
  };
  /** @type {string[]} */
  const names = [];
  const parser = new Parser(
    {
      onopentag(qualified, raw) {
        /** @type {Map<string, string> | null} */
        let scope = null;
        for (const key in raw) {
          if (key === "xmlns" || key.startsWith("xmlns:")) (scope ??= new Map()).set(key.slice(6), raw[key]);
        }
        scopes.push(scope);
        /** @type {Record<string, string>} */
        const attribs = {};
        for (const key in raw) if (!key.startsWith("xmlns")) attribs[resolve(key, true)] = raw[key];
        const name = resolve(qualified, false);
        names.push(name);
        handler.open(name, attribs);
      },
      onclosetag(qualified) {
        // At the end the tokenizer closes what a damaged or cut-off part left open.
        if (ended) throw new Error(`The document XML is malformed: <${qualified}> is never closed.`);
        scopes.pop();
        handler.close?.(/** @type {string} */ (names.pop()));
      },
      ontext: handler.text ? (text) => handler.text?.(text) : undefined,
    },
    { xmlMode: true, decodeEntities: true },
  );
  let ended = false;
  const decoder = new TextDecoder("utf-8");
  for (let offset = 0; offset < data.length; offset += READ_BYTES) {
    parser.write(decoder.decode(data.subarray(offset, offset + READ_BYTES), { stream: true }));
  }
  parser.write(decoder.decode());
  ended = true;
  parser.end();
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
 * @typedef {{ kind: "root" | "content" | "paragraph" | "text" | "alternate" | "textBox" | "table" | "row" | "cell"
 *   | "contentControl" | "paragraphProps" | "paragraphRunProps" | "rowProps" | "controlProps",
 *   deleted?: boolean, checkbox?: boolean, text?: string, after?: string[], cells?: string[] }} Frame
 */

/**
 * @param {Uint8Array} xml the main document part
 * @param {number} maxChars
 */
function documentText(xml, maxChars) {
  /** @type {string[][]} text boxes' and table cells' text is written aside, then after their paragraph or in their row */
  const outputs = [[]];
  let written = 0;
  let sawBody = false;
  /** @param {string} text */
  const write = (text) => {
    if (!text) return;
    written += text.length;
    if (written > maxChars) throw new LimitExceeded("too_much_text");
    outputs[outputs.length - 1].push(text);
  };
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
    write(text);
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
      else if (frame.kind === "paragraph") {
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
