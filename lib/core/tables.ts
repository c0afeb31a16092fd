/**
 * The tables in a document's text, as extraction writes them (lib/extract/): one line per row of
 * pipe-separated cells, header row first, as in a Markdown pipe table. A table is a maximal run of
 * two or more consecutive lines starting with `|` (after any indentation); its first line, with a
 * Markdown separator line (`|---|---|`) right after it, is its header. The boundary chunker
 * (chunking.ts) cuts a table only at a row's end and gives a chunk that holds rows without the
 * header the header as its `context`; what a chunk is embedded by names each row's cells by that
 * header (tableRowsAsPairs).
 */

interface Line {
  /** Its first character that is not whitespace. */
  start: number;
  /** After its last character that is not whitespace. */
  end: number;
}

interface Table {
  /** Header first; the separator, when there is one, is lines[1]. */
  lines: Line[];
  separator: boolean;
  start: number;
  end: number;
  /** Where the header ends: after the separator when there is one, else after the first line. */
  headerEnd: number;
}

/** Where a cut after a character falls: outside any table, at a row's end, at the header's end, or inside a row or the header. */
export type TableCut = "free" | "row" | "header" | "inside";

const TABLE_LINE = /^[ \t]*\|/;
const SEPARATOR = /^\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?$/;

/** The last item whose `start` is at most `pos` (items sorted by start), or undefined. */
function lastStartingBy<T extends { start: number }>(items: T[], pos: number): T | undefined {
  let lo = 0;
  let hi = items.length - 1;
  let found: T | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid].start <= pos) {
      found = items[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class TableLayout {
  private constructor(
    private readonly text: string,
    private readonly tables: Table[],
  ) {}

  /** The tables of `text`; null when it has none (the chunker then runs as it always has). */
  static of(text: string): TableLayout | null {
    if (!text.includes("|")) return null;
    const tables: Table[] = [];
    let run: Line[] = [];
    const close = () => {
      if (run.length >= 2) {
        const separator = SEPARATOR.test(text.slice(run[1].start, run[1].end));
        const headerEnd = run[separator ? 1 : 0].end;
        // A header and separator with no row after them is no table to keep together.
        if (run.length > (separator ? 2 : 1)) tables.push({ lines: run, separator, start: run[0].start, end: run.at(-1)!.end, headerEnd });
      }
      run = [];
    };
    for (let from = 0; from <= text.length;) {
      let to = text.indexOf("\n", from);
      if (to < 0) to = text.length;
      const line = text.slice(from, to);
      if (TABLE_LINE.test(line)) {
        const trimmed = line.trimEnd();
        run.push({ start: from + (trimmed.length - trimmed.trimStart().length), end: from + trimmed.length });
      } else close();
      from = to + 1;
    }
    close();
    return tables.length ? new TableLayout(text, tables) : null;
  }

  private tableAt(pos: number): Table | undefined {
    const t = lastStartingBy(this.tables, pos);
    return t && pos < t.end ? t : undefined;
  }

  /** What a cut at `e` (just after a word, `text[e - 1]` not whitespace) would cut. */
  cutAt(e: number): TableCut {
    const table = this.tableAt(e - 1);
    if (!table) return "free";
    const line = lastStartingBy(table.lines, e - 1)!;
    if (e !== line.end) return "inside";
    if (line === table.lines[0] && table.separator) return "inside"; // between the header and its separator
    return e === table.headerEnd ? "header" : "row";
  }

  /** Whether a chunk may start at `s` (a word's first character): outside a table, or at a row's or the header's first character. */
  canStartAt(s: number): boolean {
    const table = this.tableAt(s);
    if (!table) return true;
    const line = lastStartingBy(table.lines, s)!;
    return line.start === s && !(table.separator && line === table.lines[1]);
  }

  /**
   * The header line(s) of the table whose rows the range [start, end) holds without its header,
   * or undefined. Only the first table a range touches can have its header before the range.
   */
  contextOf(start: number, end: number): string | undefined {
    const table = this.tableAt(start);
    if (!table || table.start >= start || end <= table.headerEnd) return undefined;
    const header = table.lines.slice(0, table.separator ? 2 : 1);
    return header.map((l) => this.text.slice(l.start, l.end)).join("\n");
  }
}

/** A table line's cells, its pipes escaped as `\|` read back; null unless it starts and ends with an unescaped pipe. */
function cellsOf(line: string): string[] | null {
  const row = line.trim();
  if (row.length < 2 || row[0] !== "|" || !/(?<!\\)\|$/.test(row.slice(1))) return null;
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** A row as "column: value" pairs, "; " between them: empty cells left out, cells past the header's (or under an unnamed column) without a name. */
function rowAsPairs(names: string[], cells: string[]): string {
  return cells.flatMap((cell, k) => (cell === "" ? [] : [names[k] ? `${names[k]}: ${cell}` : cell])).join("; ");
}

/** A line that holds the end of a row cut off before it: not a table line, but ending in a row's closing pipe. */
const isRowTail = (line: string) => !TABLE_LINE.test(line) && /(?<!\\)\|$/.test(line.trimEnd());

/**
 * `text` (after `context`, its table's header) with every row of a table whose header is known
 * written as one line of "column: value" pairs; null when no row is. The context names the rows the
 * text starts with (or those right after the end of a row it may start with); a table's first line
 * in the text names the rows under it and its separator, if it has one. Rows right after the end
 * of a row with no context to name them stay as they are. A header (with its separator) is left
 * out once every row under it is written as pairs, the names being in every row then; a row the
 * chunker cut off stays as it is, and so does its header.
 */
export function tableRowsAsPairs(text: string, context?: string | null): string | null {
  const lines = text.split("\n");
  const out: string[] = [];
  let changed = false;
  let contextShown = Boolean(context);
  for (let i = 0; i < lines.length;) {
    if (!TABLE_LINE.test(lines[i])) {
      out.push(lines[i++]);
      continue;
    }
    let end = i;
    while (end < lines.length && TABLE_LINE.test(lines[end])) end++;
    const fromContext = Boolean(context) && (i === 0 || (i === 1 && isRowTail(lines[0])));
    const separator = !fromContext && i + 1 < end && SEPARATOR.test(lines[i + 1].trim());
    const headerLines = fromContext ? [] : lines.slice(i, separator ? i + 2 : i + 1);
    const names = cellsOf(fromContext ? context!.split("\n")[0] : lines[i]);
    const rows = lines.slice(i + headerLines.length, end);
    if (!names || rows.length === 0 || (!fromContext && i > 0 && isRowTail(lines[i - 1]))) {
      out.push(...lines.slice(i, end));
      i = end;
      continue;
    }
    const written = rows.map((r) => {
      const cells = cellsOf(r);
      return cells ? rowAsPairs(names, cells) : null;
    });
    // The end of a row before the rows is one more row not written as pairs.
    const whole = written.every((w) => w !== null) && !(fromContext && i === 1);
    if (fromContext) contextShown = !whole;
    else if (!whole) out.push(...headerLines);
    out.push(...written.map((w, k) => w ?? rows[k]));
    changed = true;
    i = end;
  }
  if (!changed) return null;
  return contextShown ? `${context}\n${out.join("\n")}` : out.join("\n");
}
