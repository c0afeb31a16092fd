/** A row read from an import file, before validation; `row` is its line number in the file. */
export interface RawPairRow {
  row: number;
  query?: unknown;
  expected?: unknown;
  answerable?: unknown;
  note?: unknown;
  /** The metadata filter its question is asked with (JSON files; a CSV's `filter` column holds it as JSON text). */
  filter?: unknown;
  /** Set when the line itself could not be read (bad JSON, missing column). */
  error?: string;
}

export interface ExportablePair {
  query: string;
  /** Empty for an unanswerable pair. */
  expected: string;
  answerable: boolean;
  note: string | null;
  /** The metadata filter its question is asked with (JSON lines only); null: none. */
  filter?: Record<string, unknown> | null;
}

/** RFC 4180 records with the line each starts on: quoted fields may hold commas, quotes and newlines. */
function csvRecords(text: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  const endRecord = () => {
    cells.push(cell);
    records.push({ line: start, cells });
    cells = [];
    cell = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        if (c === "\n") line++;
        cell += c;
      }
    } else if (c === '"' && cell.trim() === "") {
      quoted = true;
      cell = "";
    } else if (c === ",") {
      cells.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRecord();
      line++;
      start = line;
    } else {
      cell += c;
    }
  }
  if (cell !== "" || cells.length > 0) endRecord();
  return records.filter((r) => r.cells.some((c) => c.trim() !== ""));
}

const isHeader = (cells: string[]) => cells[0]?.trim().toLowerCase() === "query" && cells[1]?.trim().toLowerCase() === "expected";

/** A CSV cell for `answerable`: true/false, yes/no, 1/0; empty means answerable. */
function csvBoolean(cell: string | undefined): unknown {
  const v = cell?.trim().toLowerCase() ?? "";
  if (v === "") return undefined;
  if (["true", "yes", "1"].includes(v)) return true;
  if (["false", "no", "0"].includes(v)) return false;
  return cell;
}

/** `query,expected[,note[,answerable]]`, with or without that header line; an unanswerable row has an empty expected and `false`. */
export function parseCsv(text: string): RawPairRow[] {
  const records = csvRecords(text.replace(/^\uFEFF/, ""));
  if (records.length > 0 && isHeader(records[0].cells)) records.shift();
  return records.map(({ line, cells }) =>
    cells.length < 2
      ? { row: line, query: cells[0], error: "The row needs two columns: query,expected[,note[,answerable]]." }
      : { row: line, query: unguard(cells[0]), expected: unguard(cells[1]), note: unguard(cells[2]), answerable: csvBoolean(cells[3]) },
  );
}

/** One JSON object per line: `{"query", "expected"[, "note"]}`. */
export function parseJsonl(text: string): RawPairRow[] {
  const rows: RawPairRow[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((raw, i) => {
      if (raw.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        rows.push({ row: i + 1, error: "The line is not valid JSON." });
        return;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        rows.push({ row: i + 1, error: 'The line must be a JSON object {"query", "expected"}.' });
        return;
      }
      const o = value as Record<string, unknown>;
      rows.push({ row: i + 1, query: o.query, expected: o.expected, answerable: o.answerable, note: o.note, filter: o.filter });
    });
  return rows;
}

/** A JSON array of `{"query", "expected"[, "note"]}`, as the API takes it. */
export function parseJsonArray(text: string): RawPairRow[] {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return [{ row: 1, error: "The file is not valid JSON." }];
  }
  if (!Array.isArray(value)) return [{ row: 1, error: 'The file must hold a JSON array of {"query", "expected"} objects.' }];
  return value.map((o, i) =>
    typeof o === "object" && o !== null && !Array.isArray(o)
      ? { row: i + 1, query: o.query, expected: o.expected, answerable: o.answerable, note: o.note, filter: o.filter }
      : { row: i + 1, error: 'Each item must be an object {"query", "expected"}.' },
  );
}

/** Chooses the parser from a filename or content type, then from the content itself. */
export function parsePairFile(text: string, hint = ""): RawPairRow[] {
  const h = hint.toLowerCase();
  if (/jsonl|ndjson/.test(h)) return parseJsonl(text);
  if (/csv/.test(h)) return parseCsv(text);
  const start = text.replace(/^\uFEFF/, "").trimStart();
  if (start.startsWith("[")) return parseJsonArray(text);
  return start.startsWith("{") ? parseJsonl(text) : parseCsv(text);
}

/**
 * A spreadsheet runs a cell that starts with = + - @ (or a tab / carriage return before one) as a
 * formula. Exported cells that start so get a leading apostrophe, which spreadsheets show as text,
 * and the import takes it off again, so a file goes round trip unchanged.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const GUARDED = /^'[=+\-@\t\r]/;
const guard = (v: string) => (FORMULA_START.test(v) ? `'${v}` : v);
const unguard = (v: string | undefined) => (v !== undefined && GUARDED.test(v) ? v.slice(1) : v);

const csvCell = (raw: string) => {
  const v = guard(raw);
  return /[",\r\n]|^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
};

/** One CSV line of cells, quoted where needed and guarded against spreadsheet formulas. */
export const csvLine = (cells: (string | number | null)[]) => cells.map((c) => csvCell(c === null ? "" : String(c))).join(",");

export function toCsv(pairs: ExportablePair[]): string {
  const lines = pairs.map((p) => [p.query, p.expected, p.note ?? "", p.answerable ? "true" : "false"].map(csvCell).join(","));
  return ["query,expected,note,answerable", ...lines].join("\r\n") + "\r\n";
}

export function toJsonl(pairs: ExportablePair[]): string {
  const line = (p: ExportablePair) => ({
    query: p.query,
    expected: p.expected,
    ...(p.answerable ? {} : { answerable: false }),
    ...(p.note ? { note: p.note } : {}),
    ...(p.filter ? { filter: p.filter } : {}),
  });
  return pairs.map((p) => JSON.stringify(line(p))).join("\n") + (pairs.length ? "\n" : "");
}
