import { describe, expect, it } from "vitest";
import { documentChunks } from "../db/chunks";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { inspectQuery } from "./inspect";
import { searchAgentDocuments } from "./retrieve";

const SHARED = "Parcels are collected at the front desk every day.";
const TOPICS = ["refunds", "badges", "lunch", "parking", "printers", "visas"];

describe("chunks at the same distance from a query", () => {
  it("rank by document and chunk: every call returns the same ones in the same order, and a chunk's rank is the top_k that returns it", async () => {
    const agent = newAgent("ties");
    // Six documents that open with the same paragraph: six identical chunks, six equal distances.
    const ids: number[] = [];
    for (const [i, topic] of TOPICS.entries()) {
      const doc = await ingest(agent.id, `desk-${i}.md`, `${SHARED}\n\nA note on ${topic} for the team.`, 60, 0);
      ids.push(doc.document_id!);
      expect(documentChunks(doc.document_id!)[0].text.trim()).toBe(SHARED);
    }
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);

    for (let trial = 0; trial < 3; trial++) {
      for (const k of [1, 2, 3, 5, 6]) {
        const results = await searchAgentDocuments(agent.id, SHARED, k);
        expect(new Set(results.map((r) => r.score)).size, "one distance for the six copies").toBe(1);
        expect(results.map((r) => [r.document_id, r.chunk_index])).toEqual(ids.slice(0, k).map((id) => [id, 0]));
      }
    }
    // The inspector agrees with that order: the n-th copy ranks n, whatever k it is asked with.
    for (const [n, id] of ids.entries()) {
      const inspection = await inspectQuery(agent.id, SHARED, 3, id);
      expect(inspection.expected!.best_rank, `desk-${n}.md`).toBe(n + 1);
      expect(inspection.results.map((r) => r.document_id)).toEqual(ids.slice(0, 3));
    }
  });
});
