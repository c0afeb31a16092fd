// Plain ESM, shared by the HTML and Word readers (both run in the extraction worker) and the Markdown path.
// A screenshot's alt text and caption often hold the words a reader searches for ("the Billing tab with
// the Cancel subscription button"); they are kept as marked text where the image is.

const IMAGE_FILE = /\.(?:png|jpe?g|gif|webp|svg|bmp|tiff?|heic|heif|avif|ico)$/i;
// Names a camera, a screenshot tool or an editor gives a picture: they say nothing of what it shows.
const GENERIC_NAME = /^(?:img|image|picture|pic|photo|screenshot|screen shot|dsc[fn]?|pxl|untitled)[\s_-]*[\d_-]*$/i;
// What Word appends to the alt text it writes itself.
const WORD_GENERATED = /\s*Description automatically generated(?: with (?:high|medium|low) confidence)?\s*$/i;

/**
 * An image's alt text as indexed, `[Image: <alt>]`, its whitespace collapsed; "" when it is empty or
 * only names a file (`IMG_2043.png`, `screenshot.png`, the image's own file name).
 * @param {string | undefined} alt
 * @param {string} [source] the image's address or path, when known
 * @returns {string}
 */
export function imageText(alt, source = "") {
  const text = (alt ?? "").replace(WORD_GENERATED, "").replace(/\s+/g, " ").trim();
  if (!text || IMAGE_FILE.test(text) || GENERIC_NAME.test(text) || isFileName(text, source)) return "";
  return `[Image: ${text}]`;
}

/**
 * A figure's caption as indexed, `[Figure: <caption>]`, its whitespace collapsed; "" when it is empty.
 * @param {string} caption
 * @returns {string}
 */
export function figureText(caption) {
  const text = caption.replace(/\s+/g, " ").trim();
  return text ? `[Figure: ${text}]` : "";
}

/** @param {string} alt @param {string} source */
function isFileName(alt, source) {
  const name =
    source
      .replace(/[?#].*$/s, "")
      .split(/[/\\]/)
      .pop() ?? "";
  const stem = name.replace(/\.[^.]*$/, "");
  const lower = alt.toLowerCase();
  return Boolean(stem) && (lower === name.toLowerCase() || lower === stem.toLowerCase());
}
