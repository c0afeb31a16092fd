import { describe, expect, it } from "vitest";
import { parseCsv, parseJsonl, parsePairFile, toCsv, toJsonl } from "./pair-files";

describe("pair files", () => {
  it("reads CSV with or without a header, quoted fields and the line each row starts on", () => {
    const text =
      'query,expected,note\r\nsupport SLA,support-sla.md\r\n"refund, after 30 days?",refund-policy.md,"said ""no"""\r\n\r\n"two\nlines",3\n';
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
      { query: 'comma, "quote"', expected: "a.md", answerable: true, note: null },
      { query: "new\nline", expected: "b.md", answerable: true, note: "why" },
      { query: " padded ", expected: "c.md", answerable: true, note: null },
      { query: '=HYPERLINK("http://x")', expected: "@d.md", answerable: true, note: "-v or +x" },
      { query: "'quoted' stays", expected: "e.md", answerable: true, note: null },
      { query: "who won the cup final", expected: "", answerable: false, note: "off topic" },
    ];
    const csv = toCsv(pairs);
    // Spreadsheets would run a cell starting with = + - @ as a formula: those are written as text.
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")",'@d.md,'-v or +x,true\r\n`);
    expect(csv).toContain(`'quoted' stays,e.md,,true\r\n`);
    expect(csv).toContain(`who won the cup final,,off topic,false\r\n`);
    expect(csv.startsWith("query,expected,note,answerable\r\n")).toBe(true);
    const read = (rows: ReturnType<typeof parsePairFile>) =>
      rows.map(({ query, expected, answerable, note }) => ({ query, expected, answerable: answerable ?? true, note: note || null }));
    expect(read(parsePairFile(csv, "pairs.csv"))).toEqual(pairs);
    const jsonl = toJsonl(pairs);
    expect(jsonl.trim().split("\n")).toHaveLength(6);
    expect(jsonl).toContain('{"query":"who won the cup final","expected":"","answerable":false,"note":"off topic"}');
    expect(read(parsePairFile(jsonl))).toEqual(pairs);
  });
});
