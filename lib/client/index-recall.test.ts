import { describe, expect, it } from "vitest";
import type { IndexRecall } from "../retrieval/index-recall";
import { indexRecallSentence, indexRecallWarning } from "./index-recall";

const base: IndexRecall = {
  agent_id: 1,
  k: 10,
  queries: 20,
  served_recall: 1,
  index_recall: 0.62,
  served_exactly: true,
  nearest_missed: 0,
  index_nearest_missed: 4,
  model: "m",
  threshold: 0.95,
  below_threshold: false,
  measured_at: "2025-01-01T00:00:00.000Z",
  reason: null,
  serving: null,
};

describe("index recall in words", () => {
  it("says what searches get and what the index alone does, or why nothing was measured", () => {
    expect(indexRecallSentence(base)).toBe(
      "Index recall@10: searches return 100% of the nearest 10 chunks (ranked exactly); Chroma's index alone 62%, over the 20 latest distinct searches.",
    );
    expect(indexRecallSentence({ ...base, served_recall: null, index_recall: null, queries: 0, reason: "no searches logged yet" })).toBe(
      "Index recall@10: no searches logged yet.",
    );
  });

  it("warns only below the threshold, naming the searches whose nearest chunk was missed", () => {
    expect(indexRecallWarning(base)).toBeNull();
    const low = { ...base, served_recall: 0.815, served_exactly: false, nearest_missed: 3, below_threshold: true };
    expect(indexRecallWarning(low)).toBe(
      "Searches miss near chunks: they return 81.5% of the nearest 10, below the 95% the app expects. For 3 searches, the nearest chunk of all was not returned. Rebuilding the vector index builds its graph afresh.",
    );
    expect(indexRecallSentence(low)).toContain("(Chroma's index, read 200 deep)");
  });
});
