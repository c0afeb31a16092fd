import { figureText, imageText } from "./alt-text.mjs";
import { FENCE } from "./markdown-tables";

// Patterns of CommonMark's image syntax, each capturing the alt text and, when it has one, the address.
const ALT = String.raw`((?:\\.|[^\\\]\n])*)`;
const ADDRESS = String.raw`\s*(<[^>\n]*>|[^\s()<]*(?:\([^\s()]*\)[^\s()]*)*)`;
const TITLE = String.raw`(?:\s+(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\((?:\\.|[^)\\\n])*\)))?\s*`;
const INLINE = String.raw`!\[${ALT}\]\(${ADDRESS}${TITLE}\)`;
// `[![alt](image)](link)` is an image that links somewhere; `![alt][ref]` one whose address is defined elsewhere.
const IMAGES = String.raw`\[${INLINE}\]\([^)\n]*\)|${INLINE}|!\[${ALT}\]\[[^\]\n]*\]`;
// Code spans come first, so that an image written inside one stays as it is; the space before an image
// goes with it when it leaves nothing.
const CODE_OR_IMAGE = new RegExp(String.raw`(\`+)[^\n]*?(?<!\`)\1(?!\`)|([ \t]*)(?:${IMAGES})`, "g");
const IMAGE = new RegExp(IMAGES, "g");

// A caption written under its image: `*Figure 2:* the Billing tab`, or a line of emphasis alone.
const FIGURE = /^\s*[*_]{1,2}Figure\b/;
const EMPHASIS = /^\s*(\*{1,2}|_{1,2})(?=\S)((?:(?!\1).)*?[\p{L}\p{N}](?:(?!\1).)*?)(?<=\S)\1\s*$/u;

/**
 * A Markdown file's images as their alt text, `[Image: <alt>]`, where they are (the address and title
 * dropped; an empty alt or one that only names a file leaves nothing), and the caption on the line right
 * after a line of images as `[Figure: <caption>]` at the end of that line. Code stays as written.
 */
export function markdownImages(text: string): string {
  if (!text.includes("![")) return text;
  const lines = text.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const opener = FENCE.exec(line)?.[1];
    if (opener && (fence === null || (opener[0] === fence[0] && opener.length >= fence.length))) {
      fence = fence === null ? opener : null;
    }
    if (opener || fence !== null || !line.includes("![")) {
      out.push(line);
      continue;
    }
    const written = line.replace(CODE_OR_IMAGE, (match, code, space, linkedAlt, linkedAddress, alt, address, referencedAlt, at) => {
      if (code !== undefined) return match;
      const source = (linkedAddress ?? address ?? "").replace(/^<|>$/g, "");
      const text = imageText(unescaped(linkedAlt ?? alt ?? referencedAlt ?? ""), source);
      if (text) return `${space}${text}`;
      // Nothing in its place: the words on either side keep one space between them, and none before a stop.
      return /^[^\s.,;:!?)\]]/.test(line.slice(at + match.length)) ? space : "";
    });
    if (line.replace(IMAGE, "").trim()) {
      out.push(written);
      continue;
    }
    const caption = i + 1 < lines.length ? captionOf(lines[i + 1]) : "";
    if (caption) i++;
    const joined = [written.trimEnd(), caption].filter((part) => part.trim()).join(" ");
    // A line of images that leaves nothing goes, rather than leave a blank line that would split its paragraph.
    if (joined) out.push(joined);
  }
  return out.join("\n");
}

/** `[Figure: <caption>]` for a caption line, its emphasis markers taken off; "" for any other line. */
function captionOf(line: string): string {
  const whole = EMPHASIS.exec(line);
  if (whole) return figureText(whole[2]);
  if (!FIGURE.test(line)) return "";
  return figureText(line.trim().replace(/^(\*{1,2}|_{1,2})(.+?)\1/, "$2"));
}

/** Alt text with Markdown's backslash escapes read: `\_` is `_`. */
function unescaped(alt: string): string {
  return alt.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}
