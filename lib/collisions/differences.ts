import "server-only";
import { chunkTextOf } from "../db/collision-reads";
import { sentences, tokenize, type Token } from "./tokens";
import type { ChunkPair, ChunkRef } from "./near-duplicates";

/**
 * What two near-duplicate documents say differently: sentences that read the same once numbers,
 * dates and prices are masked but differ as written, and sentences that differ in a name or two
 * an article would name a setting by (`max_retries`, "Advanced", Settings > Network). Any such
 * difference makes the pair conflicting rather than duplicate; a reworded sentence is neither.
 */

export type DifferenceKind = "number" | "price" | "date" | "time" | "duration" | "setting";

export interface DifferingToken {
  a: string;
  b: string;
  kind: DifferenceKind;
}

export interface Difference {
  a: ChunkRef & { sentence: string };
  b: ChunkRef & { sentence: string };
  tokens: DifferingToken[];
}

/** At most this many differing sentences are shown per document pair. */
export const MAX_DIFFERENCES = 20;
/** A sentence may differ in this many names and still be the same sentence with another setting. */
const MAX_NAME_CHANGES = 2;

const UNITS = /^(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|business)$/i;

function kindOf(tokens: Token[], k: number): DifferenceKind {
  const t = tokens[k];
  if (t.kind === "word") return "setting";
  if (t.kind === "number") {
    const next = tokens[k + 1]?.text ?? "";
    // "3 days", and "3 to 5 days" for its first figure.
    if (UNITS.test(next) || (/^(?:to|and|or)$/i.test(next) && tokens[k + 2]?.kind === "number" && UNITS.test(tokens[k + 3]?.text ?? "")))
      return "duration";
    if (tokens[k - 1]?.kind === "date" || tokens[k + 1]?.kind === "date") return "date";
    return "number";
  }
  return t.kind;
}

/** Looks like a name a setting goes by: code-like, or capitalised inside its sentence, or quoted. */
function isName(sentence: string, tokens: Token[], k: number): boolean {
  const t = tokens[k];
  if (/[_.]|[a-z][A-Z]/.test(t.text)) return true;
  if (k > 0 && /^\p{Lu}/u.test(t.text)) return true;
  return /["'`“‘>]\s*$/.test(sentence.slice(Math.max(0, t.at - 2), t.at));
}

/** The differing tokens of two sentences of the same length, or null when they differ in more than names and figures. */
function differingTokens(sa: string, ta: Token[], sb: string, tb: Token[]): DifferingToken[] | null {
  if (ta.length !== tb.length || ta.length === 0) return null;
  const out: DifferingToken[] = [];
  let names = 0;
  for (let k = 0; k < ta.length; k++) {
    if (ta[k].text === tb[k].text) continue;
    if (ta[k].masked === tb[k].masked) {
      if (ta[k].kind === "word") continue; // the same word in other case
      out.push({ a: ta[k].text, b: tb[k].text, kind: kindOf(ta, k) });
      continue;
    }
    if (ta[k].kind !== "word" || tb[k].kind !== "word" || !isName(sa, ta, k) || !isName(sb, tb, k)) return null;
    if (++names > MAX_NAME_CHANGES) return null;
    out.push({ a: ta[k].text, b: tb[k].text, kind: "setting" });
  }
  // Only names changed: a sentence of two or three words differing in one is not the same sentence.
  if (names > 0 && names * 4 > ta.length) return null;
  return out;
}

/** The differing sentences of matched chunk pairs that are not identical, each pair of sentences once. */
export function differences(agentId: number, pairs: ChunkPair[]): Difference[] {
  const out: Difference[] = [];
  const seen = new Set<string>();
  for (const p of pairs) {
    if (p.identical) continue;
    const [textA, textB] = [chunkTextOf(agentId, p.a.document_id, p.a.chunk_index), chunkTextOf(agentId, p.b.document_id, p.b.chunk_index)];
    if (textA === undefined || textB === undefined) continue;
    const sb = sentences(textB).map((s) => ({ s, t: tokenize(s) }));
    const byMask = new Map<string, { s: string; t: Token[] }[]>();
    for (const x of sb) {
      const key = x.t.map((t) => t.masked).join(" ");
      byMask.set(key, [...(byMask.get(key) ?? []), x]);
    }
    for (const sa of sentences(textA)) {
      const ta = tokenize(sa);
      const same = byMask.get(ta.map((t) => t.masked).join(" "));
      // The same sentence as written on the other side: nothing differs there.
      if (same?.some((x) => x.s === sa)) continue;
      const candidates = same ?? sb.filter((x) => x.t.length === ta.length);
      for (const x of candidates) {
        const tokens = differingTokens(sa, ta, x.s, x.t);
        if (!tokens?.length) continue;
        const key = `${sa}\u0000${x.s}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push({ a: { ...p.a, sentence: sa }, b: { ...p.b, sentence: x.s }, tokens });
        }
        break;
      }
      if (out.length >= MAX_DIFFERENCES) return out;
    }
  }
  return out;
}
