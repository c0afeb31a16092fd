/**
 * Where a PDF's pages start in its extracted text, and which pages a chunk covers: a document
 * records the character offset of each page's first character (`page_starts`, 1 per page, in page
 * order), and every chunk made of it records its first and last page, shown with the chunk in
 * results, citations and the document page.
 */

/** A chunk's pages, 1-based and inclusive: `{ first: 3, last: 3 }` for a chunk within page 3. */
export interface PageRange {
  first: number;
  last: number;
}

// Pages are joined by a blank line, as the other readers separate paragraphs.
const PAGE_SEPARATOR = "\n\n";

/**
 * A PDF's pages as one text, and where each page starts in it. Each page is tidied first (line
 * endings, trailing spaces, runs of blank lines, blank lines at its start and end), so that the
 * tidying the text gets after extraction (collapseBlankLines, trimEnd) cannot move a page's
 * start. A page without text starts where the next page's text would: it holds no character, so
 * no chunk is placed on it.
 */
export function joinPages(pages: readonly string[]): { text: string; starts: number[] } {
  let text = "";
  const starts: number[] = [];
  for (const page of pages) {
    const tidy = tidyPage(page);
    const separated = text.length > 0 ? text.length + PAGE_SEPARATOR.length : 0;
    starts.push(separated);
    if (!tidy) continue;
    if (text.length > 0) text += PAGE_SEPARATOR;
    text += tidy;
  }
  return { text, starts };
}

function tidyPage(page: string): string {
  return page
    .replace(/\r\n?/g, "\n")
    .replace(/[^\S\n]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\s*\n/, "")
    .trimEnd();
}

/** The 1-based page that holds the character at `offset`: the last page starting at or before it. */
function pageAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * The pages a chunk's characters `[start, end)` lie on; null for a document without pages, and
 * for a chunk that holds none of the document's characters (one written by hand).
 */
export function pagesOf(starts: readonly number[] | null | undefined, start: number, end: number): PageRange | null {
  if (!starts?.length || end <= start) return null;
  return { first: pageAt(starts, start), last: pageAt(starts, end - 1) };
}

/** "p. 3", or "pp. 3-4" for a chunk across pages. */
export function pageLabel(range: PageRange): string {
  return range.first === range.last ? `p. ${range.first}` : `pp. ${range.first}–${range.last}`;
}

/** A stored `page_starts` value (a JSON array of offsets) read back; null for none or anything else. */
export function parsePageStarts(value: string | null | undefined): number[] | null {
  if (!value) return null;
  try {
    const starts: unknown = JSON.parse(value);
    return Array.isArray(starts) && starts.length > 0 && starts.every((s) => Number.isInteger(s) && s >= 0) ? starts : null;
  } catch {
    return null;
  }
}

/** Whether `starts` can be a PDF's page starts in a text of `length` characters: from 0, never decreasing, within the text. */
export function validPageStarts(starts: readonly number[], length: number): boolean {
  return (
    starts.length > 0 &&
    starts[0] === 0 &&
    starts.every((s, i) => Number.isInteger(s) && s >= 0 && (i === 0 || s >= starts[i - 1])) &&
    starts.every((s) => s <= length + PAGE_SEPARATOR.length)
  );
}
