// Plain ESM: the extraction worker runs it unbundled for large pages.
// Tells a help article apart from the page around it: menus, banners, forms and hidden content.
import { Parser } from "htmlparser2";

/** Attribute names (lower-case) to values, as the tokenizer reports them. @typedef {Record<string, string>} Attributes */

export const KEEP = 0;
/** Never shown to a reader; dropped whatever else the page holds. */
export const INVISIBLE = 1;
/** Site navigation and controls around the article. */
export const CHROME = 2;
/** `header`/`footer`: chrome at page level, but may hold the title inside an article. */
export const LANDMARK = 3;

// Content a reader never sees; indexing it would pollute retrieval with code and boilerplate.
export const INVISIBLE_TAGS = new Set(["head", "title", "script", "style", "noscript", "template", "svg"]);
const CHROME_TAGS = new Set("nav aside form button select textarea iframe dialog".split(" "));
const LANDMARK_TAGS = new Set(["header", "footer"]);
// Structural containers are never dropped by role or class: pages put state flags like "has-cookie-banner" on them.
const STRUCTURAL_TAGS = new Set(["html", "body", "main", "article"]);
const CHROME_ROLES = new Set("navigation banner contentinfo complementary search dialog alertdialog".split(" "));
const HEADING = /^h[1-6]$/;

// A class or id token is chrome only if it names chrome and every other word in it merely qualifies that name.
const CHROME_WORDS = new Set(
  "cookie cookies consent gdpr banner breadcrumb breadcrumbs sidebar skiplink skiplinks siteheader sitefooter onetrust cookiebot cybot".split(
    " ",
  ),
);
// Any other word ("has-sidebar", "cookie-policy", "article-body") makes the token content, which is kept.
const QUALIFIERS = new Set(
  (
    "bar notice notification popup modal overlay dialog prompt message box panel container wrapper wrap " +
    "inner outer root sdk widget region area left right top bottom nav menu list trail item items link links " +
    "accept settings preferences site global js"
  ).split(" "),
);
// Most tokens name none of the chrome words; this rejects them without splitting.
const MENTIONS_CHROME = /cookie|consent|gdpr|banner|breadcrumb|side.?bar|skip|site.?(?:header|footer)|onetrust|cybot/i;
const COMPOUNDS = /(?<=^|-)(?:site-header|site-footer|skip-links?|skip-to-content|skip-to-main|skip-nav|side-bar)(?=-|$)/g;

/**
 * Whether an element is kept, dropped as never visible, dropped as chrome, or a header/footer landmark.
 * @param {string} tag lower-case tag name
 * @param {Attributes} attribs
 * @returns {number}
 */
export function classify(tag, attribs) {
  if (INVISIBLE_TAGS.has(tag)) return INVISIBLE;
  // Most elements carry no attributes; skip reading them.
  if (isEmpty(attribs)) return CHROME_TAGS.has(tag) ? CHROME : LANDMARK_TAGS.has(tag) ? LANDMARK : KEEP;
  const hidden = attribute(attribs, "hidden");
  // "until-found" content is collapsed but searchable by design, e.g. accordion answers.
  if (hidden !== undefined && hidden.trim().toLowerCase() !== "until-found") return INVISIBLE;
  if ((attribute(attribs, "aria-hidden") ?? "").trim().toLowerCase() === "true") return INVISIBLE;
  if (CHROME_TAGS.has(tag)) return CHROME;
  const roles = words(attribute(attribs, "role"));
  if (STRUCTURAL_TAGS.has(tag) || roles.includes("main")) return KEEP;
  if (roles.some((role) => CHROME_ROLES.has(role))) return CHROME;
  if (isChromeToken(attribute(attribs, "id") ?? "") || words(attribute(attribs, "class")).some(isChromeToken)) return CHROME;
  return LANDMARK_TAGS.has(tag) ? LANDMARK : KEEP;
}

/**
 * The alt text an `<img>` is indexed by, or undefined for one that only decorates (marked
 * presentational or hidden) or counts visits (a tracking pixel, 2 pixels wide or high at most).
 * @param {Attributes} attribs
 * @returns {string | undefined}
 */
export function imageAlt(attribs) {
  const alt = attribute(attribs, "alt");
  if (!alt?.trim()) return undefined;
  if (words(attribute(attribs, "role")).some((role) => role === "presentation" || role === "none")) return undefined;
  if ((attribute(attribs, "aria-hidden") ?? "").trim().toLowerCase() === "true") return undefined;
  const pixel = (/** @type {string} */ name) => Number.parseFloat(attribute(attribs, name) ?? "") <= 2;
  return pixel("width") || pixel("height") ? undefined : alt;
}

/** @param {Attributes} attribs @param {string} name @returns {string | undefined} */
export function attribute(attribs, name) {
  return Object.hasOwn(attribs, name) ? attribs[name] : undefined;
}

/** @param {Attributes} attribs */
function isEmpty(attribs) {
  for (const _ in attribs) return false;
  return true;
}

/** @param {string} token e.g. "cookie-banner", "cookieConsent", "site-header" */
export function isChromeToken(token) {
  if (!MENTIONS_CHROME.test(token)) return false;
  const parts = token
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean)
    .join("-")
    .replace(COMPOUNDS, (compound) =>
      compound.startsWith("side") ? "sidebar" : compound.startsWith("skip") ? "skiplink" : compound.replace("-", ""),
    )
    .split("-")
    .filter(Boolean);
  // Single letters are naming-scheme prefixes such as "c-cookie-banner".
  const qualifies = (/** @type {string} */ part) => CHROME_WORDS.has(part) || QUALIFIERS.has(part) || part.length === 1;
  return parts.some((part) => CHROME_WORDS.has(part)) && parts.every(qualifies);
}

/** @param {string | undefined} value */
function words(value) {
  return value ? value.toLowerCase().split(/\s+/).filter(Boolean) : [];
}

/**
 * Reads the page once, calling `handler` for each element as it opens and closes and for each run of text.
 * Nothing of the page is kept: an element is known by its ordinal, the number of elements opened before
 * it, which is the same on every read of the same page. Every element that opens also closes (the
 * tokenizer closes what the page leaves open), and tags that imply a close (`<li>` after `<li>`, a
 * `<div>` inside a `<p>`) nest as a browser would nest them.
 * @param {string} html
 * @param {{ open(tag: string, attribs: Attributes, ordinal: number): void, close(): void, text?(text: string): void }} handler
 */
export function readPage(html, handler) {
  let ordinal = 0;
  const parser = new Parser(
    {
      onopentag: (tag, attribs) => handler.open(tag, attribs, ordinal++),
      onclosetag: () => handler.close(),
      ontext: handler.text ? (text) => handler.text?.(text) : undefined,
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
}

/** @typedef {{ outside: boolean, inMain: boolean, inArticle: boolean, landmark: number, before: number, table: number }} ScanFrame */

// What makes a table a page's layout rather than data: these inside it (or a role saying so).
const LAYOUT_CONTENT = /^(?:table|h[1-6]|main|article|section|nav|header|footer)$/;

/**
 * One pass over the page: the `main` elements (or else `article`s) outside any chrome, in document order,
 * the header/footer landmarks that contain a heading, the kind of every element not kept, and the tables
 * that lay out a page (holding another table, a heading or a landmark, or marked presentational), each by ordinal.
 * @param {string} html
 * @returns {{ roots: Set<number>, headed: Set<number>, kinds: Map<number, number>, layoutTables: Set<number> }}
 */
export function scanPage(html) {
  /** @type {number[]} */
  const mains = [];
  /** @type {number[]} */
  const articles = [];
  /** @type {Set<number>} */
  const headed = new Set();
  // Classified once here, so the walks only look elements up; absent means KEEP.
  /** @type {Map<number, number>} */
  const kinds = new Map();
  /** @type {Set<number>} */
  const layoutTables = new Set();
  let headings = 0;
  // Elements still open inside an invisible one: nothing in there counts.
  let hiddenDepth = 0;
  /** @type {ScanFrame[]} */
  const frames = [{ outside: false, inMain: false, inArticle: false, landmark: -1, before: 0, table: -1 }];
  readPage(html, {
    open(tag, attribs, ordinal) {
      if (hiddenDepth) return void hiddenDepth++;
      const kind = classify(tag, attribs);
      if (kind !== KEEP) kinds.set(ordinal, kind);
      if (kind === INVISIBLE) return void (hiddenDepth = 1);
      if (HEADING.test(tag)) headings++;
      let { outside, inMain, inArticle, table } = frames[frames.length - 1];
      if (table >= 0 && LAYOUT_CONTENT.test(tag)) layoutTables.add(table);
      if (tag === "table") {
        table = ordinal;
        if (words(attribute(attribs, "role")).some((role) => role === "presentation" || role === "none")) layoutTables.add(table);
      }
      // A form may wrap a whole page, so a main inside one still counts.
      if (kind === LANDMARK || (kind === CHROME && tag !== "form")) outside = true;
      if (!outside && !inMain && (tag === "main" || words(attribute(attribs, "role")).includes("main"))) {
        mains.push(ordinal);
        inMain = true;
      }
      if (!outside && !inArticle && tag === "article") {
        articles.push(ordinal);
        inArticle = true;
      }
      frames.push({ outside, inMain, inArticle, landmark: kind === LANDMARK ? ordinal : -1, before: headings, table });
    },
    close() {
      if (hiddenDepth) return void hiddenDepth--;
      const frame = frames.length > 1 ? frames.pop() : undefined;
      if (frame && frame.landmark >= 0 && headings > frame.before) headed.add(frame.landmark);
    },
  });
  return { roots: new Set(mains.length ? mains : articles), headed, kinds, layoutTables };
}
