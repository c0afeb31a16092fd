// Plain ESM: the extraction worker runs it unbundled for large pages.
// Tells a help article apart from the page around it: menus, banners, forms and hidden content.
import { NodeType } from "node-html-parser";

/** @typedef {import("node-html-parser").Node} Node */
/** @typedef {import("node-html-parser").HTMLElement} HTMLElement */

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
  "cookie cookies consent gdpr banner breadcrumb breadcrumbs sidebar skiplink skiplinks siteheader sitefooter onetrust cookiebot cybot".split(" "),
);
// Any other word ("has-sidebar", "cookie-policy", "article-body") makes the token content, which is kept.
const QUALIFIERS = new Set(
  ("bar notice notification popup modal overlay dialog prompt message box panel container wrapper wrap " +
    "inner outer root sdk widget region area left right top bottom nav menu list trail item items link links " +
    "accept settings preferences site global js").split(" "),
);
// Most tokens name none of the chrome words; this rejects them without splitting.
const MENTIONS_CHROME = /cookie|consent|gdpr|banner|breadcrumb|side.?bar|skip|site.?(?:header|footer)|onetrust|cybot/i;
const COMPOUNDS = /(?<=^|-)(?:site-header|site-footer|skip-links?|skip-to-content|skip-to-main|skip-nav|side-bar)(?=-|$)/g;

/**
 * Whether an element is kept, dropped as never visible, dropped as chrome, or a header/footer landmark.
 * @param {HTMLElement} el
 * @param {string} tag lower-case tag name
 * @returns {number}
 */
export function classify(el, tag) {
  if (INVISIBLE_TAGS.has(tag)) return INVISIBLE;
  // Most elements carry no attributes; skip parsing them.
  if (!el.rawAttrs) return CHROME_TAGS.has(tag) ? CHROME : LANDMARK_TAGS.has(tag) ? LANDMARK : KEEP;
  const hidden = el.getAttribute("hidden");
  // "until-found" content is collapsed but searchable by design, e.g. accordion answers.
  if (hidden !== undefined && hidden.trim().toLowerCase() !== "until-found") return INVISIBLE;
  if ((el.getAttribute("aria-hidden") ?? "").trim().toLowerCase() === "true") return INVISIBLE;
  if (CHROME_TAGS.has(tag)) return CHROME;
  const roles = words(el.getAttribute("role"));
  if (STRUCTURAL_TAGS.has(tag) || roles.includes("main")) return KEEP;
  if (roles.some((role) => CHROME_ROLES.has(role))) return CHROME;
  if (isChromeToken(el.getAttribute("id") ?? "") || words(el.getAttribute("class")).some(isChromeToken)) return CHROME;
  return LANDMARK_TAGS.has(tag) ? LANDMARK : KEEP;
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
    .replace(COMPOUNDS, (compound) => (compound.startsWith("side") ? "sidebar" : compound.startsWith("skip") ? "skiplink" : compound.replace("-", "")))
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

/** @typedef {{ node: Node, outside: boolean, inMain: boolean, inArticle: boolean } | { landmark: HTMLElement, before: number }} ScanTask */

/**
 * One iterative pass over the page: the `main` elements (or else `article`s) outside any chrome, in document
 * order, the header/footer landmarks that contain a heading, and the kind of every element not kept.
 * @param {Node} root
 * @returns {{ roots: HTMLElement[], headed: Set<HTMLElement>, kinds: Map<HTMLElement, number> }}
 */
export function scanPage(root) {
  /** @type {HTMLElement[]} */
  const mains = [];
  /** @type {HTMLElement[]} */
  const articles = [];
  /** @type {Set<HTMLElement>} */
  const headed = new Set();
  // Classified once here, so the walks only look elements up; absent means KEEP.
  /** @type {Map<HTMLElement, number>} */
  const kinds = new Map();
  let headings = 0;
  /** @type {ScanTask[]} */
  const stack = [{ node: root, outside: false, inMain: false, inArticle: false }];
  while (stack.length) {
    const task = /** @type {ScanTask} */ (stack.pop());
    if ("landmark" in task) {
      if (headings > task.before) headed.add(task.landmark);
      continue;
    }
    if (task.node.nodeType !== NodeType.ELEMENT_NODE) continue;
    const el = /** @type {HTMLElement} */ (task.node);
    const tag = (el.rawTagName ?? "").toLowerCase();
    const kind = classify(el, tag);
    if (kind !== KEEP) kinds.set(el, kind);
    if (kind === INVISIBLE) continue;
    if (HEADING.test(tag)) headings++;
    let { outside, inMain, inArticle } = task;
    if (kind === LANDMARK) stack.push({ landmark: el, before: headings });
    // A form may wrap a whole page, so a main inside one still counts.
    if (kind === LANDMARK || (kind === CHROME && tag !== "form")) outside = true;
    if (!outside && !inMain && (tag === "main" || (el.rawAttrs && words(el.getAttribute("role")).includes("main")))) {
      mains.push(el);
      inMain = true;
    }
    if (!outside && !inArticle && tag === "article") {
      articles.push(el);
      inArticle = true;
    }
    const children = el.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], outside, inMain, inArticle });
  }
  return { roots: mains.length ? mains : articles, headed, kinds };
}
