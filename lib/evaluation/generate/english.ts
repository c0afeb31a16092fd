/**
 * Turns a heading or a sentence of a document into a question, with a few fixed English rules
 * (no model): "Refund policy" -> "What is the refund policy?", "Changing plans" -> "How do I
 * change plans?", "You can export it." -> "Can I export it?". Null when no rule fits.
 */

/**
 * What the document says of its capitalised words: those it writes mid-sentence ("paying for
 * Relay") are names, kept capitalised; a lone word it never writes in lower case is one too.
 */
export interface Vocabulary {
  names: ReadonlySet<string>;
  lower: ReadonlySet<string>;
}
const NO_VOCABULARY: Vocabulary = { names: new Set(), lower: new Set() };

/** Markdown and HTML left in a line: links, emphasis, code marks, tags; spacing collapsed. */
export function clean(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/(\*\*|__|`)/g, "")
    .replace(/(^|\s)[*_]([^*_\s][^*_]*?)[*_](?=\s|[.,;:!?]|$)/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

/** "7.2. ", "Chapter 7. ", "Section 3 ": a heading's number says nothing a reader would ask. */
export const unnumbered = (heading: string) => heading.replace(/^(?:(?:chapter|section|part|step)\s+)?\d+(?:\.\d+)*\.?\s+(?=\S)/i, "");

const AUX = new Set(["is", "are", "was", "were", "can", "could", "will", "would", "should", "must", "may", "might", "does", "do", "did"]);
const DETERMINERS = new Set([
  "the",
  "a",
  "an",
  "my",
  "our",
  "your",
  "its",
  "their",
  "this",
  "these",
  "those",
  "each",
  "every",
  "all",
  "any",
  "some",
  "no",
]);
/** A sentence opening with one of these starts with a clause or an adverb, not its subject. */
const NOT_SUBJECT = new Set(
  "after before if when while to for in on at by with from during once since unless because although though as so then please only also here now however but and or of it this that they these those he she which".split(
    " ",
  ),
);
/** A subject opening with one of these is plural: "Many device files belong", where "files" is no verb. */
const PLURAL_QUANTIFIERS = new Set("many several some most few both all two three four various numerous".split(" "));
const FUNCTION_WORDS = new Set(
  "and or of in on for with without about into over under between through after before to from by at as that which who than per the a an are is were was not".split(
    " ",
  ),
);
/** -ing words that name things, not actions: "Billing" is not "How do I bill?". */
const ING_NOUNS = new Set(
  "pricing billing shipping onboarding accounting marketing meeting training hosting thing nothing something everything morning evening building string during pending heading wording warning rating booking ring king spring offering listing mailing operating existing missing remaining following upcoming incoming outgoing ongoing matching recurring leading trailing".split(
    " ",
  ),
);
const GENERIC_HEADINGS = new Set(
  "faq|faqs|frequently asked questions|contents|table of contents|introduction|overview|summary|conclusion|references|see also|related articles|notes|contact|contact us|more information|next steps".split(
    "|",
  ),
);
/** Adverbs and common verbs that follow a plural subject: "Premium customers also get", not "customers" as a verb. */
const AFTER_SUBJECT = new Set(
  "also only always never often usually still just all get have need go see pay receive use keep want lose sign".split(" "),
);
/** A heading in the reader's voice, "Forgot your password": asked as "What if I forgot my password?". */
const READER_VERBS = new Set("forgot lost missed deleted changed received got need want cannot can't".split(" "));
const PREPOSITIONS = new Set("after before during within until upon on in at for with without from beyond past under over".split(" "));

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const words = (s: string) => s.split(" ").filter(Boolean);
const bare = (w: string) => w.replace(/[^\p{L}\p{N}'-]/gu, "");

/** The document speaks to the reader and as "we": a question is asked by the reader, to "you". */
export function asReader(text: string): string {
  const map: Record<string, string> = { your: "my", yours: "mine", yourself: "myself", our: "your", ours: "yours", we: "you", us: "you" };
  return text.replace(/\b(your|yours|yourself|our|ours|we|us)\b/gi, (w) =>
    w === w.toUpperCase() && w.length > 1 ? w : map[w.toLowerCase()],
  );
}

/** A capitalised first word in lower case, unless it is an acronym or a name. */
function lowerFirst(text: string, vocab: Vocabulary): { text: string; name: boolean } {
  const [first, ...rest] = words(text);
  const w = bare(first);
  const lc = w.toLowerCase();
  const seenLower = [lc, lc.replace(/s$/, ""), lc.replace(/ies$/, "y")].some((v) => vocab.lower.has(v));
  const name =
    !DETERMINERS.has(lc) && (/^\p{Lu}{2,}/u.test(w) || vocab.names.has(w) || (rest.length === 0 && /^\p{Lu}/u.test(w) && !seenLower));
  return { text: [name ? first : first.toLowerCase(), ...rest].join(" "), name };
}

const plural = (w: string) => /[^siu's]s$/i.test(bare(w));

/** "changing" -> "change", "setting" -> "set", "exporting" -> "export": enough for headings of help articles. */
export function gerundBase(word: string): string {
  const stem = word.toLowerCase().replace(/ing$/, "");
  if (/[^aeiou][aeiou]([bdgmnprt])\1$/.test(stem)) return stem.slice(0, -1);
  if (stem === "sync" || /y$/.test(stem)) return stem;
  if (
    /(at|iz|bl|dl|gl|pl|kl|tl|fl|v|z|ang|rg|dg|[^aeiou]ag|[^aeiou]ur|[^aeiou]ar|(st|sc|gn|pl)or|[^aeiou]in|[^aeiou]id|[^aeiou]ud|[^aeiou]ir|[^aeiou]ok|[^aeiou]ut|[^aeiou]ul|let|c|u|[aeiou]s)$/.test(
      stem,
    )
  ) {
    return `${stem}e`;
  }
  if (/^(writ|invit|nam|renam|sav|shar|us|mak|tak)$/.test(stem)) return `${stem}e`;
  return stem;
}

/** "contains" -> "contain", "reaches" -> "reach", "applies" -> "apply". */
export function thirdPersonBase(word: string): string {
  if (/ies$/.test(word)) return word.replace(/ies$/, "y");
  if (/(ch|sh|x|ss|zz|o)es$/.test(word)) return word.replace(/es$/, "");
  return word.replace(/s$/, "");
}

function whClause(text: string, vocab: Vocabulary): string | null {
  const [wh, ...rest] = words(text);
  const W = cap(wh.toLowerCase());
  if (rest.length === 0) return null;
  if (AUX.has(rest[0].toLowerCase())) return `${W} ${asReader(rest.join(" "))}?`;
  const to = rest[0].toLowerCase() === "to" && rest.length > 1;
  if (to) return `${W} do I ${asReader(rest.slice(1).join(" "))}?`;
  const subject = (end: number) => lowerFirst(asReader(rest.slice(0, end).join(" ")), vocab).text;
  const aux = rest.findIndex((w, i) => i > 0 && AUX.has(w.toLowerCase()));
  if (aux > 0) return `${W} ${rest[aux].toLowerCase()} ${subject(aux)} ${asReader(rest.slice(aux + 1).join(" "))}`.trim() + "?";
  const verb = rest.findIndex((w, i) => i > 0 && plural(w) && /^[a-z]/.test(w) && !DETERMINERS.has(rest[i - 1].toLowerCase()));
  if (verb > 0) return `${W} does ${subject(verb)} ${thirdPersonBase(rest[verb])} ${asReader(rest.slice(verb + 1).join(" "))}`.trim() + "?";
  return rest.length >= 2 ? `${W} do ${subject(rest.length)}?` : null;
}

/** A section heading as the question the section answers; null for headings like "Overview". */
export function headingQuestion(heading: string, vocab: Vocabulary = NO_VOCABULARY): string | null {
  const h = unnumbered(clean(heading)).replace(/[.:;,!]+$/, "");
  const ws = words(h);
  if (ws.length === 0 || GENERIC_HEADINGS.has(h.toLowerCase()) || h.replace(/[^\p{L}]/gu, "").length < 4) return null;
  if (h.endsWith("?")) return h;
  const first = ws[0].toLowerCase();
  if (/^(how|what|when|where|who|which|why)$/.test(first)) return whClause(h, vocab);
  const gerund = (w = "") => /^[a-z]{3,}ing$/i.test(w) && !ING_NOUNS.has(w.toLowerCase());
  if (gerund(ws[0]) && ws.length >= 2 && !/^(and|or|&)$/i.test(ws[1]))
    return `How do I ${gerundBase(first)} ${asReader(ws.slice(1).join(" "))}?`;
  // "Getting and installing Debian": both are things to do.
  if (gerund(ws[0]) && /^(and|or)$/i.test(ws[1]) && gerund(ws[2]) && ws.length >= 4) {
    return `How do I ${gerundBase(first)} ${ws[1].toLowerCase()} ${gerundBase(ws[2])} ${asReader(ws.slice(3).join(" "))}?`;
  }
  if (READER_VERBS.has(first) && ws.length >= 2) return `What if I ${asReader(h.charAt(0).toLowerCase() + h.slice(1))}?`;
  if (PREPOSITIONS.has(first) && ws.length >= 2) return `What happens ${asReader(h.charAt(0).toLowerCase() + h.slice(1))}?`;
  const { text, name } = lowerFirst(asReader(h), vocab);
  // The head noun is the last word before a preposition: "Full refund within 30 days" is one refund.
  const cut = ws.findIndex((w, i) => i > 0 && (PREPOSITIONS.has(w.toLowerCase()) || w.toLowerCase() === "of"));
  const head = cut > 0 ? ws.slice(0, cut) : ws;
  const many = plural(head[head.length - 1]) || /\s(and|&)\s/.test(h);
  const article = ws.length === 1 || name || DETERMINERS.has(first) || /^\d/.test(first) ? "" : "the ";
  return `What ${many ? "are" : "is"} ${article}${text}?`;
}

/** The sentence up to its first clause break, without the final stop. */
function mainClause(sentence: string): string {
  return sentence
    .replace(/\s*\([^)]*\)/g, "")
    .split(/;|: | — | – | \(e\.g\.|, (?=(?:and|but|so|which|while|where|then|depending|unless|except)\b)/)[0]
    .replace(/[.!:,]+$/, "")
    .trim();
}

/** "developers" before a plain word ("Debian developers communicate") names people; "offers a" is a verb. */
const agentNoun = (w: string, next = "") =>
  /(ers|ors)$/.test(w) &&
  /^[a-z]+$/.test(next) &&
  !DETERMINERS.has(next) &&
  !FUNCTION_WORDS.has(next) &&
  !PREPOSITIONS.has(next) &&
  !/^(up|out|down|off)$/.test(next);

/** A clause cut before what it introduces ("contains symlinks like:") asks nothing. */
const DANGLING = new Set(["like", "follows", "following", "below", "here", "these", "this"]);

/** A statement turned into the yes/no question it answers: "Exports are in JSON" -> "Are exports in JSON?". */
export function sentenceQuestion(sentence: string, vocab: Vocabulary = NO_VOCABULARY): string | null {
  return inverted(sentence, vocab)?.replace(/\s+\?$/, "?") ?? null;
}

function inverted(sentence: string, vocab: Vocabulary): string | null {
  const s = mainClause(clean(sentence));
  const ws = words(s);
  if (ws.length < 4 || s.includes("?") || NOT_SUBJECT.has(ws[0].toLowerCase()) || /ly$/i.test(ws[0])) return null;
  const last = ws[ws.length - 1].toLowerCase();
  if (FUNCTION_WORDS.has(last) || DANGLING.has(last)) return null;
  // A negation makes an odd question ("Can't packages be installed?"): left to the other kinds.
  if (ws.slice(0, 6).some((w) => /n't$|^cannot$/i.test(w))) return null;
  const rest = (from: number) => asReader(ws.slice(from).join(" "));
  const subject = (end: number) =>
    ws.slice(0, end).some((w) => /[,;()]/.test(w)) ? null : lowerFirst(asReader(ws.slice(0, end).join(" ")), vocab).text;
  const you = /^you\s+(can|must|should|may|will|need to|have to)\s+(.+)$/i.exec(s);
  if (you) {
    const aux = you[1].toLowerCase();
    return aux.endsWith(" to") ? `Do I ${aux} ${asReader(you[2])}?` : `${cap(aux)} I ${asReader(you[2])}?`;
  }
  if (/^we$/i.test(ws[0]) && /^[a-z]+$/.test(ws[1]) && !plural(ws[1]))
    return AUX.has(ws[1]) ? `${cap(ws[1])} you ${rest(2)}?` : `Do you ${rest(1)}?`;
  const window = ws.slice(1, 6).map((w) => w.toLowerCase());
  const aux = window.findIndex((w) => AUX.has(w)) + 1;
  const has = window.findIndex((w) => w === "has" || w === "have") + 1;
  // A subject ends in a noun: "The preferred way to do this" is no subject of "do".
  if (aux > 0 && (has === 0 || aux < has) && !FUNCTION_WORDS.has(ws[aux - 1].toLowerCase())) {
    const subj = subject(aux);
    return subj && `${cap(ws[aux].toLowerCase())} ${subj} ${rest(aux + 1)}?`;
  }
  if (has > 0 && !FUNCTION_WORDS.has(ws[has - 1].toLowerCase())) {
    const subj = subject(has);
    const does = ws[has].toLowerCase() === "has" ? "Does" : "Do";
    return (
      subj &&
      (/^been$|ed$/.test(ws[has + 1] ?? "")
        ? `${cap(ws[has].toLowerCase())} ${subj} ${rest(has + 1)}?`
        : `${does} ${subj} have ${rest(has + 1)}?`)
    );
  }
  // "Relay connects to ...": a verb in -s after a subject of plain singular words.
  const plain = (w: string) => !plural(w) && !/\d/.test(w) && !FUNCTION_WORDS.has(w.toLowerCase());
  const verb = ws.findIndex(
    (w, i) =>
      i > 0 &&
      i <= 4 &&
      !PLURAL_QUANTIFIERS.has(ws[0].toLowerCase()) &&
      plural(w) &&
      /^[a-z]+$/.test(w) &&
      !DETERMINERS.has(ws[i - 1].toLowerCase()) &&
      ws.slice(0, i).every(plain) &&
      !AFTER_SUBJECT.has(ws[i + 1]?.toLowerCase() ?? "") &&
      !/ly$/.test(ws[i + 1] ?? "") &&
      !agentNoun(w, ws[i + 1]),
  );
  if (verb > 0) {
    const subj = subject(verb);
    return subj && `Does ${subj} ${thirdPersonBase(ws[verb])} ${rest(verb + 1)}?`;
  }
  const head = plural(ws[0]) ? 1 : plural(ws[1]) ? 2 : 0;
  const next = ws[head]?.toLowerCase() ?? "";
  if (head > 0 && /^[a-z]+$/.test(next) && !FUNCTION_WORDS.has(next) && !plural(next) && !/(ed|ing)$/.test(next)) {
    const subj = subject(head);
    return subj && `Do ${subj} ${rest(head)}?`;
  }
  return null;
}
