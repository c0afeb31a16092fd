import type { Source } from "./chat";

/**
 * The answer without a chat model: the sentences of the relevant chunks that share the most
 * words with the question, in the order they appear, each with its chunk's label. It quotes,
 * never paraphrases, and says so (the API marks it `"answer_kind": "extractive"`).
 */

const STOPWORDS = new Set(
  "the and for are but not you your with that this from have has was were can how what when where which who why does did into about than then them they their there will would should could may might our out all any its".split(
    " ",
  ),
);

const words = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 3 && !STOPWORDS.has(w));

/** A question word counts as matched by a sentence word with the same first five letters (refund, refunds, refunded). */
const stem = (w: string) => w.slice(0, 5);

/** Sentences of a chunk; Markdown heading lines are titles, not answers, and are left out. */
function sentences(text: string): string[] {
  return text
    .split(/\n+/)
    .filter((line) => !/^\s*#/.test(line))
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

export interface Extract {
  answer: string;
  /** Indexes into the sources of the chunks quoted. */
  used: number[];
}

export function extractiveAnswer(question: string, sources: Source[], maxSentences = 3): Extract {
  const wanted = new Set(words(question).map(stem));
  const scored = sources.flatMap((s, source) =>
    sentences(s.text).map((text, order) => ({
      text,
      source,
      order,
      score: new Set(
        words(text)
          .map(stem)
          .filter((w) => wanted.has(w)),
      ).size,
    })),
  );
  const matching = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.source - b.source || a.order - b.order);
  // Nothing in common by spelling: the closest chunk's opening is still the best there is.
  const picked = (matching.length > 0 ? matching.slice(0, maxSentences) : scored.slice(0, 1)).sort(
    (a, b) => a.source - b.source || a.order - b.order,
  );
  return {
    answer: picked.map((s) => `${s.text} [${sources[s.source].label}]`).join(" "),
    used: [...new Set(picked.map((s) => s.source))],
  };
}
