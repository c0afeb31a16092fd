// Plain ESM, run in the extraction worker: the parts of a .docx read as a stream of XML tags.
import { Parser } from "htmlparser2";

// Namespaces by URI, named by the prefix Word itself writes, in the transitional and the strict format:
// a document may bind any prefix to them.
const NAMESPACES = new Map([
  ["http://schemas.openxmlformats.org/wordprocessingml/2006/main", "w"],
  ["http://purl.oclc.org/ooxml/wordprocessingml/main", "w"],
  ["http://schemas.openxmlformats.org/markup-compatibility/2006", "mc"],
  ["urn:schemas-microsoft-com:vml", "v"],
  ["http://schemas.microsoft.com/office/word/2010/wordml", "wordml"],
  ["http://schemas.openxmlformats.org/package/2006/relationships", "rel"],
  ["http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing", "wp"],
  ["http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing", "wp"],
  ["http://schemas.microsoft.com/office/drawing/2017/decorative", "adec"],
]);

// Inflated document XML is decoded and read this many bytes at a time.
const READ_BYTES = 1 << 20;

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
export function readXml(data, handler) {
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
