import { describe, expect, it } from "vitest";
import { jaccard, shingles, tokenize } from "./tokens";
import { matchChunks, signatureLength, signInto } from "./minhash";

const TEXTS = [
  "Standard delivery takes 3 to 5 business days inside the country. Express delivery arrives the next business day when ordered before 2 pm.",
  "Standard delivery takes 5 to 8 business days inside the country. Express delivery arrives the next business day when ordered before 4 pm.",
  "Express delivery is not offered for routers. Standard delivery of a router takes a week, and the tracking number arrives by email.",
  "Refunds reach the original payment method in 5 to 10 days; a bank transfer can take longer than a card refund does.",
];

function chunkSet(texts: string[]) {
  const cache = new Map<string, number>();
  const sets = texts.map((t) => shingles(tokenize(t), cache));
  const signatures = new Uint32Array(sets.length * signatureLength);
  sets.forEach((s, i) => signInto(s, signatures, i * signatureLength));
  return { doc: Int32Array.from(texts.map((_, i) => i)), shingles: sets, signatures, count: sets.length };
}

describe("masked shingles and MinHash candidates", () => {
  it("read a copy with other figures as the same text, and a text on the same topic as another", () => {
    const cache = new Map<string, number>();
    const [a, b, c] = TEXTS.map((t) => shingles(tokenize(t), cache));
    expect(jaccard(a, b)).toBe(1);
    expect(jaccard(a, c)).toBeLessThan(0.1);
  });

  it("find the pair of copies and nothing else, the same on every run", async () => {
    const pause = async () => {};
    const first = await matchChunks(chunkSet(TEXTS), 0.5, 50, pause);
    expect(first.matches).toEqual([{ i: 0, j: 1, similarity: 1 }]);
    expect(await matchChunks(chunkSet(TEXTS), 0.5, 50, pause)).toEqual(first);
  });

  it("leave out a bucket more documents share than the limit", async () => {
    const many = Array.from({ length: 6 }, () => TEXTS[3]);
    const { matches, boilerplate } = await matchChunks(chunkSet(many), 0.5, 5, async () => {});
    expect(matches).toEqual([]);
    expect(boilerplate).toBeGreaterThan(0);
  });
});
