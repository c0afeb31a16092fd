/**
 * The key that makes a question asked again one question: lower case, letters and digits of any
 * script kept, every run of spaces and punctuation one space. "How do I reset my password?" and
 * "how do i  reset my password" share a key; near-duplicates that differ in words are grouped by
 * embedding similarity instead (lib/questions/group.ts).
 */
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
