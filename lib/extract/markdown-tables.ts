/**
 * A Markdown file's pipe tables as the chunker reads them (lib/core/tables.ts): every row a line
 * that starts and ends with `|`. A GitHub-style table may leave out the outer pipes and indent its
 * lines by up to three spaces; those rows are given their pipes and lose the indent. Tables written
 * with their pipes and every other line stay as they are, and so does anything in a fenced code block.
 */
export function markdownTables(text: string): string {
  if (!text.includes("|")) return text;
  const lines = text.split("\n");
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const opener = FENCE.exec(lines[i])?.[1];
    if (opener && (fence === null || (opener[0] === fence[0] && opener.length >= fence.length))) {
      fence = fence === null ? opener : null;
      continue;
    }
    if (fence !== null || i + 1 >= lines.length || !isRow(lines[i]) || !DELIMITER.test(lines[i + 1])) continue;
    let end = i + 2;
    while (end < lines.length && isRow(lines[end])) end++;
    for (let k = i; k < end; k++) lines[k] = piped(lines[k]);
    i = end - 1;
  }
  return lines.join("\n");
}

export const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// A delimiter row: cells of dashes, optionally colon-aligned, split by pipes (at least one pipe or outer pipe).
const DELIMITER = /^ {0,3}(?=.*\|)\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const isRow = (line: string) => /^ {0,3}\S/.test(line) && /(?<!\\)\|/.test(line);

function piped(line: string): string {
  const row = line.trim();
  const open = row.startsWith("|") ? row : `| ${row}`;
  return /(?<!\\)\|$/.test(open) && open.length > 1 ? open : `${open} |`;
}
