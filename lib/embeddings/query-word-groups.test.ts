import { describe, expect, it } from "vitest";
import { groupQueryWords } from "./query-word-groups";

const w = (word: string, chunks: number, weight: number) => ({ word, chunks, weight });

describe("groupQueryWords", () => {
  it("puts words no chunk has apart, although their factor is the largest", () => {
    const { inChunks, inNoChunk } = groupQueryWords([w("never", 0, 3.53), w("refund", 4, 1.2), w("paypal", 0, 3.53)]);
    expect(inNoChunk.map((x) => x.word)).toEqual(["never", "paypal"]);
    expect(inChunks.map((x) => x.word)).toEqual(["refund"]);
  });

  it("orders the words found in chunks by weight, highest first, and keeps query order on a tie", () => {
    const { inChunks } = groupQueryWords([w("how", 30, 0.1), w("invoice", 2, 2.4), w("pdf", 5, 1.6), w("download", 5, 1.6)]);
    expect(inChunks.map((x) => x.word)).toEqual(["invoice", "pdf", "download", "how"]);
  });

  it("leaves the input as it was", () => {
    const words = [w("a", 3, 1), w("b", 1, 2)];
    groupQueryWords(words);
    expect(words.map((x) => x.word)).toEqual(["a", "b"]);
  });
});
