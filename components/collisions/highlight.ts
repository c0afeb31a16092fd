import { tokenize } from "@/lib/collisions/tokens";
import type { DifferingToken } from "@/lib/collisions/differences";

export interface Segment {
  text: string;
  /** A token that differs from the other side's sentence. */
  marked: boolean;
}

/** The positions in `mine` of the tokens that differ from `theirs` (both tokenized alike). */
function differingAt(mine: string, theirs: string, tokens: DifferingToken[], side: "a" | "b"): Set<number> {
  const [tm, tt] = [tokenize(mine), tokenize(theirs)];
  const other = side === "a" ? "b" : "a";
  const pairs = new Set(tokens.map((t) => `${t[side]}\u0000${t[other]}`));
  const at = new Set<number>();
  if (tm.length === tt.length) {
    tm.forEach((t, k) => {
      if (pairs.has(`${t.text}\u0000${tt[k].text}`)) at.add(k);
    });
    return at;
  }
  // Sentences are aligned token by token; should they not be, each differing text is marked where it occurs.
  const texts = new Set(tokens.map((t) => t[side]));
  tm.forEach((t, k) => {
    if (texts.has(t.text)) at.add(k);
  });
  return at;
}

/** `sentence` cut into plain and marked runs: the tokens that differ from the other side's sentence are marked. */
export function highlight(sentence: string, other: string, tokens: DifferingToken[], side: "a" | "b"): Segment[] {
  const at = differingAt(sentence, other, tokens, side);
  const out: Segment[] = [];
  let from = 0;
  tokenize(sentence).forEach((t, k) => {
    if (!at.has(k)) return;
    if (t.at > from) out.push({ text: sentence.slice(from, t.at), marked: false });
    out.push({ text: t.text, marked: true });
    from = t.at + t.text.length;
  });
  if (from < sentence.length) out.push({ text: sentence.slice(from), marked: false });
  return out;
}
