import { questionKey } from "../../core/normalize";
import { MAX_QUERY_LENGTH } from "../../validations/search";
import { clean, headingQuestion, sentenceQuestion, unnumbered, type Vocabulary } from "./english";

/**
 * The offline question generator: reads a document's own structure (markdown, or the plain text
 * extracted from HTML, PDF or DOCX) and proposes the questions it answers, with no model:
 * FAQ-style question lines, section headings as questions, a section's first sentence as a
 * yes/no question. Deterministic: the same text always gives the same questions.
 */

export type QuestionKind = "faq" | "heading" | "sentence";
export interface GeneratedQuestion {
  query: string;
  kind: QuestionKind;
}

/** Fewer words say too little to test retrieval with; a question over MAX_CHARS is not one a person types. */
const MIN_WORDS = 3;
const MAX_CHARS = Math.min(200, MAX_QUERY_LENGTH);
/** Read this much of a document at most: the questions come from its structure, which shows long before the end. */
export const MAX_TEXT_CHARS = 200_000;

interface Section {
  heading: string | null;
  /** Paragraphs of the section: each its lines, markdown as is. */
  paragraphs: string[][];
}

const MD_HEADING = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;
const LIST_ITEM = /^\s*(?:[-*+•]|\d+[.)])\s+/;
const ABBREVIATIONS = /\b(e\.g|i\.e|etc|vs|cf|Mr|Mrs|Dr)\./gi;
/** Where a sentence ends: a stop after a word (not after "e.g."), then space. */
const SENTENCE_END = /(?<=[\p{L}\p{N})"'”’][.!?])(?<!\b(?:e\.g|i\.e|etc|vs|cf|Mr|Mrs|Dr)\.)\s+/u;
const Q_PREFIX = /^(?:q|question\s*\d*)\s*[:.)–-]\s*/i;

/** A line alone in its paragraph, short and without a stop: a heading of text without markup. */
function plainHeading(lines: string[]): string | null {
  if (lines.length !== 1) return null;
  const line = lines[0].trim();
  const n = line.split(/\s+/).length;
  if (line.length > 60 || n > 8 || LIST_ITEM.test(line) || /[.,;:!]$/.test(line) || !/^[\p{Lu}\p{N}]/u.test(line)) return null;
  return line;
}

/** The text as sections under their headings; with no markdown heading at all, short lines alone in a paragraph count as headings. */
export function sections(text: string): Section[] {
  const lines = text.slice(0, MAX_TEXT_CHARS).split(/\r?\n/);
  const markdown = lines.some((l) => MD_HEADING.test(l));
  const out: Section[] = [{ heading: null, paragraphs: [] }];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length === 0) return;
    const heading = markdown ? null : plainHeading(paragraph);
    if (heading) out.push({ heading, paragraphs: [] });
    else out[out.length - 1].paragraphs.push(paragraph);
    paragraph = [];
  };
  for (const line of lines) {
    const h = MD_HEADING.exec(line);
    if (h) {
      flush();
      out.push({ heading: h[2], paragraphs: [] });
    } else if (line.trim() === "") flush();
    else paragraph.push(line);
  }
  flush();
  return out.filter((s) => s.heading !== null || s.paragraphs.length > 0);
}

/**
 * A line that is a question: a heading or a line of one sentence ending in "?" (prose that asks
 * in passing is not), or a line starting with "Q:".
 */
export function faqQuestion(line: string): string | null {
  const heading = MD_HEADING.test(line);
  let text = unnumbered(
    clean(
      line
        .replace(MD_HEADING, "$2")
        .replace(/^\s*>\s*/, "")
        .replace(LIST_ITEM, ""),
    ),
  );
  const prefixed = Q_PREFIX.test(text);
  text = text.replace(Q_PREFIX, "");
  if (!text || (!heading && /[.!?:]\s+\S/.test(text.replace(ABBREVIATIONS, "")))) return null;
  if (text.endsWith("?")) return text;
  return prefixed ? `${text.replace(/[.:!]+$/, "")}?` : null;
}

/** The first sentence of a section's first paragraph of prose (lists, tables and code are passed over). */
function firstSentence(section: Section): string | null {
  const prose = section.paragraphs.find((p) => !LIST_ITEM.test(p[0]) && !/^\s*(\||```|>|<)/.test(p[0]) && !faqQuestion(p[p.length - 1]));
  if (!prose) return null;
  return clean(prose.join(" ")).split(SENTENCE_END)[0] ?? null;
}

/** Capitalised words written after a lower-case word or a comma (names, not a sentence's first word), and the words written in lower case. */
function vocabulary(text: string): Vocabulary {
  const head = text.slice(0, MAX_TEXT_CHARS);
  return {
    names: new Set(head.match(/(?<=[\p{Ll}\p{N},] )\p{Lu}[\p{L}\p{N}'-]*/gu) ?? []),
    lower: new Set(head.match(/(?<![\p{L}\p{N}'-])\p{Ll}[\p{L}\p{N}'-]*/gu) ?? []),
  };
}

/** Every question the document's structure yields, FAQ lines first, then headings, then first sentences; no two alike. */
export function candidateQuestions(text: string): GeneratedQuestion[] {
  const parts = sections(text);
  const known = vocabulary(text);
  const faq = text.slice(0, MAX_TEXT_CHARS).split(/\r?\n/).map(faqQuestion);
  // The document's title asks the broadest question: after the sections' own.
  const titled = parts[0]?.heading !== null && parts.filter((p) => p.heading !== null).length > 1;
  const headed = titled ? [...parts.slice(1), parts[0]] : parts;
  const candidates: GeneratedQuestion[] = [
    ...faq.map((q) => ({ query: q, kind: "faq" as const })),
    ...headed.map((s) => ({ query: s.heading === null ? null : headingQuestion(s.heading, known), kind: "heading" as const })),
    ...parts.map((s) => {
      const first = firstSentence(s);
      return { query: first && sentenceQuestion(first, known), kind: "sentence" as const };
    }),
  ].filter((c): c is GeneratedQuestion => c.query !== null);
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = questionKey(c.query);
    const ok = key.split(" ").length >= MIN_WORDS && c.query.length <= MAX_CHARS && !seen.has(key);
    seen.add(key);
    return ok;
  });
}

/** Up to n questions the document answers, the surest kinds first. */
export function offlineQuestions(text: string, n: number): GeneratedQuestion[] {
  return candidateQuestions(text).slice(0, Math.max(0, n));
}
