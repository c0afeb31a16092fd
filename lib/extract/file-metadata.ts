import { Parser } from "htmlparser2";
import { parseDocument } from "yaml";
import { readableMetadata, type Metadata } from "../core/metadata";

/**
 * Metadata a file carries itself: a Markdown file's front matter (YAML between `---` lines at its
 * top) and an HTML page's `<meta name content>` tags. Keys that cannot be a team's own (a
 * built-in field's name, say) and values a filter could not use (nested objects) are left out,
 * never refused: the file is still indexed.
 */

const FRONT_MATTER = /^\uFEFF?---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

/**
 * A Markdown text's front matter as metadata, and the text without it. A first `---` block that
 * is not a YAML mapping (a thematic break, say) is left in the text, and no metadata is read.
 */
export function markdownFrontMatter(text: string): { text: string; metadata: Metadata } {
  const m = FRONT_MATTER.exec(text);
  if (!m) return { text, metadata: {} };
  const doc = parseDocument(m[1], { schema: "core", uniqueKeys: false });
  const value: unknown = doc.errors.length === 0 ? doc.toJS() : null;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { text, metadata: {} };
  return { text: text.slice(m[0].length).replace(/^\n+/, ""), metadata: readableMetadata(value as Record<string, unknown>) };
}

/** Meta tags about the page, not its content: not metadata a filter would use. */
const PRESENTATION = new Set([
  "viewport",
  "generator",
  "robots",
  "googlebot",
  "theme-color",
  "color-scheme",
  "referrer",
  "format-detection",
  "csrf-token",
  "csrf-param",
  "description",
]);

/**
 * A meta tag's content as front matter would type it: a plain number (no leading zero, so codes
 * such as 0042 stay text) is a number, true and false are booleans, anything else is text. A
 * filter compares values by type, so {"firmware": 3} finds a page whose tag says 3.
 */
function typed(content: string): string | number | boolean {
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(content)) return Number(content);
  if (content === "true" || content === "false") return content === "true";
  return content;
}

/**
 * An HTML page's `<meta name="…" content="…">` tags as metadata (`keywords` as a list), read from
 * the page's head; the page's description and tags for browsers and crawlers are left out.
 */
export function htmlMetaTags(html: string): Metadata {
  const found: Record<string, unknown> = {};
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (done || name !== "meta") return;
        const key = (attribs.name ?? attribs.property ?? "").trim();
        const content = attribs.content?.trim();
        if (!key || !content || PRESENTATION.has(key.toLowerCase()) || /^(og|twitter|fb|msapplication|apple|google)[:\-_]/i.test(key))
          return;
        found[key] =
          key.toLowerCase() === "keywords"
            ? content
                .split(",")
                .map((k) => k.trim())
                .filter(Boolean)
            : typed(content);
      },
      onclosetag(name) {
        if (name === "head") done = true;
      },
      onopentagname(name) {
        if (name === "body") done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  // The head is at the top: a page's first 256 KB hold it.
  parser.end(html.slice(0, 256 * 1024));
  return readableMetadata(found);
}
