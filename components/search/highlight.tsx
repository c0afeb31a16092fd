import { stem } from "@/lib/embeddings/local/stemmer";

const STOP = new Set([
  "the",
  "and",
  "for",
  "are",
  "how",
  "what",
  "who",
  "why",
  "can",
  "does",
  "with",
  "you",
  "your",
  "our",
  "a",
  "an",
  "of",
  "to",
  "in",
  "is",
  "it",
  "on",
  "do",
  "my",
]);

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const mark = (part: string, key: number) => (
  <mark key={key} className="rounded-sm bg-yellow-200 px-0.5">
    {part}
  </mark>
);

/**
 * The chunk text with the query's words marked, so a reader sees what matched literally. With
 * `byStem`, whole words that share a query word's stem are marked ("refund" for "refunds"), as the
 * keyword index matches them.
 */
export function Highlight({ text, query, byStem = false }: { text: string; query: string; byStem?: boolean }) {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].filter((w) => !STOP.has(w));
  if (words.length === 0) return <>{text}</>;
  if (byStem) {
    const stems = new Set(words.map(stem));
    return (
      <>{text.split(/([\p{L}\p{N}]+)/u).map((part, i) => (i % 2 === 1 && stems.has(stem(part.toLowerCase())) ? mark(part, i) : part))}</>
    );
  }
  const re = new RegExp(
    `(${words
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join("|")})`,
    "giu",
  );
  return <>{text.split(re).map((part, i) => (i % 2 === 1 ? mark(part, i) : part))}</>;
}
