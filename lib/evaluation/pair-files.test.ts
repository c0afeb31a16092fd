import { describe, expect, it } from "vitest";
import { parseCsv, parseJsonl, parsePairFile, toCsv, toJsonl } from "./pair-files";

describe("pair files", () => {
  it("reads CSV with or without a header, quoted fields and the line each row starts on", () => {
    const text = 'query,expected,note\r\nsupport SLA,support-sla.md\r\n"refund, after 30 days?",refund-policy.md,"said ""no"""\r\n\r\n"two\nlines",3\n';
    expect(parseCsv(text)).toEqual([
      { row: 2, query: "support SLA", expected: "support-sla.md", note: undefined },
      { row: 3, query: "refund, after 30 days?", expected: "refund-policy.md", note: 'said "no"' },
      { row: 5, query: "two\nlines", expected: "3", note: undefined },
    ]);
    expect(parseCsv("a,b")).toEqual([{ row: 1, query: "a", expected: "b", note: undefined }]);
    expect(parseCsv("\uFEFFonly one column\n")[0]).toMatchObject({ row: 1, error: expect.stringMatching(/two columns/) });
  });

  it("reads JSONL and flags lines that are not objects", () => {
    const rows = parseJsonl('{"query":"a","expected":"x.md"}\n\nnot json\n[1]\n{"query":"b","expected":4,"note":"n"}');
    expect(rows).toEqual([
      { row: 1, query: "a", expected: "x.md", note: undefined },
      { row: 3, error: "The line is not valid JSON." },
      { row: 4, error: expect.stringMatching(/JSON object/) },
      { row: 5, query: "b", expected: 4, note: "n" },
    ]);
  });

  it("writes CSV and JSONL that read back to the same pairs", () => {
    const pairs = [
      { query: 'comma, "quote"', expected: "a.md", note: null },
      { query: "new\nline", expected: "b.md", note: "why" },
      { query: " padded ", expected: "c.md", note: null },
      { query: "=HYPERLINK(\"http://x\")", expected: "@d.md", note: "-v or +x" },
      { query: "'quoted' stays", expected: "e.md", note: null },
    ];
    const csv = toCsv(pairs);
    // Spreadsheets would run a cell starting with = + - @ as a formula: those are written as text.
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")",'@d.md,'-v or +x\r\n`);
    expect(csv).toContain(`'quoted' stays,e.md,\r\n`);
    expect(csv.startsWith("query,expected,note\r\n")).toBe(true);
    expect(parsePairFile(csv, "pairs.csv").map(({ query, expected, note }) => ({ query, expected, note: note || null }))).toEqual(pairs);
    const jsonl = toJsonl(pairs);
    expect(jsonl.trim().split("\n")).toHaveLength(5);
    expect(parsePairFile(jsonl).map(({ query, expected, note }) => ({ query, expected, note: note ?? null }))).toEqual(pairs);
  });
});
