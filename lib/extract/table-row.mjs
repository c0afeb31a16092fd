// Plain ESM, shared by the HTML and Word readers (both run in the extraction worker).

/**
 * One table row as the chunker reads it (lib/core/tables.ts): a line of pipe-separated cells, each
 * cell's whitespace and line breaks collapsed to single spaces and a pipe in it escaped, so the row
 * stays one line with the same number of cells.
 * @param {string[]} cells the cells' raw text
 * @returns {string}
 */
export function tableRow(cells) {
  return `| ${cells.map((c) => c.replace(/\s+/g, " ").trim().replace(/\|/g, "\\|")).join(" | ")} |`;
}
