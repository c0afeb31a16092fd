// A copy of lib/core/normalize.ts as migration 20 first ran it: the live question key may change.

/** Lower case, letters and digits of any script kept, every run of spaces and punctuation one space. */
export function questionKey(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The question text of a logged call's input: a search's query or an ask's question. */
export function questionText(input: unknown): string | null {
  if (input === null || typeof input !== "object") return null;
  const { query, question } = input as { query?: unknown; question?: unknown };
  const text = typeof query === "string" ? query : typeof question === "string" ? question : null;
  return text && questionKey(text) ? text : null;
}
