// A file's name as the client sent it is untrusted text that ends up in tables, logs,
// Chroma metadata and download headers; this is the one place that makes it safe to show.

const MAX_BYTES = 255;
// Longer "extensions" are more likely part of the name than a type, and must not eat the cap.
const MAX_EXTENSION_BYTES = 32;

// Zero-width characters and bidi controls: invisible, and the latter reorder what is shown
// (`invoice\u202etxt.exe.md` displays as `invoicedm.exe.txt`).
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// Control characters that separate words become spaces; every other C0/C1 control and DEL goes.
const SPACING_CONTROLS = /[\t\n\v\f\r\u0085]/g;
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const encoder = new TextEncoder();
const byteLength = (s: string) => encoder.encode(s).byteLength;

/** Splits "name.ext" into stem and extension (".md" alone is an extension with no stem). */
function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf(".");
  if (dot < 0 || dot === name.length - 1) return [name, ""];
  const ext = name.slice(dot);
  if (/\s/.test(ext) || byteLength(ext) > MAX_EXTENSION_BYTES) return [name, ""];
  return [name.slice(0, dot), ext];
}

/** Cuts `text` to at most `max` UTF-8 bytes without splitting a code point. */
function truncateBytes(text: string, max: number): string {
  let out = "";
  let used = 0;
  for (const ch of text) {
    const size = byteLength(ch);
    if (used + size > max) break;
    out += ch;
    used += size;
  }
  return out;
}

/** One path segment made displayable and storable; "" when nothing is left of it. */
function cleanSegment(segment: string): string {
  const clean = segment
    .replace(LONE_SURROGATES, "\uFFFD")
    .replace(INVISIBLE, "")
    .replace(SPACING_CONTROLS, " ")
    .replace(CONTROLS, "")
    .replace(/\s+/g, " ")
    .normalize("NFC")
    .trim();
  return clean === "." || clean === ".." ? "" : clean;
}

/** A cleaned segment capped at 255 UTF-8 bytes with its extension kept, or "untitled" (plus the extension). */
function capSegment(clean: string): string {
  const [rawStem, ext] = splitExtension(clean);
  let stem = rawStem.trim() ? rawStem : "untitled";
  if (byteLength(stem) + byteLength(ext) > MAX_BYTES) stem = truncateBytes(stem, MAX_BYTES - byteLength(ext)).trimEnd();
  return stem + ext;
}

/**
 * The displayable, storable form of an uploaded file's name: last path segment, NFC, no
 * control, zero-width or bidi characters, single spaces, at most 255 UTF-8 bytes with the
 * extension kept, and "untitled" (plus the extension) when nothing else is left.
 */
export function sanitizeFilename(name: string): string {
  return capSegment(cleanSegment(name.split(/[\\/]/).pop() ?? ""));
}

const MAX_PATH_BYTES = 1024;

/**
 * A document name that keeps its folders (a synced folder's relative path, a page's URL
 * path): each segment cleaned as a filename, empty, "." and ".." segments dropped, joined
 * with "/", at most 1,024 UTF-8 bytes (the innermost folders kept). A name without folders
 * comes out as sanitizeFilename gives it.
 */
export function sanitizeDocumentPath(name: string): string {
  const segments = name.split(/[\\/]/).map(cleanSegment).filter(Boolean);
  const file = capSegment(segments.pop() ?? "");
  const kept = [file];
  let used = byteLength(file);
  for (const dir of segments.reverse().map(capSegment)) {
    if (used + byteLength(dir) + 1 > MAX_PATH_BYTES) break;
    kept.unshift(dir);
    used += byteLength(dir) + 1;
  }
  return kept.join("/");
}
