import { describe, expect, it } from "vitest";
import { chunkWords, sharedBigrams, wordsOf } from "./words";

const CHUNK = "# Refunds\n\nRefunds are paid to the card used. A refund takes five days: card refunds first, then vouchers.";

describe("the words a reranker compares", () => {
  it("counts the question's word pairs a chunk has, never across a phrase break, as the chunk's own pairs would", () => {
    const chunk = chunkWords(CHUNK);
    const question = (q: string) => new Set(wordsOf(q).bigrams);
    const naive = (q: string) => [...question(q)].filter((b) => new Set(wordsOf(CHUNK).bigrams).has(b)).length;
    for (const q of ["when are refunds paid", "card refunds", "refund takes five days", "days card", "vouchers refund", "gift cards"]) {
      expect(sharedBigrams(chunk, question(q)), q).toBe(naive(q));
    }
    expect(sharedBigrams(chunk, question("refunds paid"))).toBe(1);
    // "days: card" spans a break: no pair.
    expect(sharedBigrams(chunk, question("days card"))).toBe(0);
  });

  it("gives a chunk's stems, order and headings the same when it is read again", () => {
    const first = chunkWords(CHUNK);
    expect([...first.headings]).toEqual(["refund"]);
    expect(first.stems.has("voucher")).toBe(true);
    expect(first.sequence.length).toBe(first.breaks.length);
    expect(chunkWords(`${CHUNK}`.slice(0))).toEqual(first);
    expect(chunkWords(`${CHUNK} Coupons.`).stems.has("coupon")).toBe(true);
  });
});
