import { describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { chunkText } from "../core/chunking";
import { insertDocument, listDocuments } from "../db/documents";
import { removeDocument } from "../ingest/remove";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { deleteAgentRow } from "../db/agents";
import { db } from "../db/client";
import { hasKeywordTable, indexChunksInto, KEYWORD_TABLE_DEFINITION, MAX_CHUNKS_PER_DOCUMENT } from "../db/keyword-index";
import { ftsTerms, keywordRanking } from "./keyword";

const model = () => embedder().model;

describe("the keyword index", () => {
  it("ranks the agent's own ready chunks by bm25, with stemming, and never another agent's", async () => {
    const agent = newAgent("keyword");
    const other = newAgent("keyword other");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
    await ingest(other.id, "refunds.txt", ARTICLES.refunds);
    const hits = keywordRanking(agent.id, model(), "refunded purchases", 10);
    const names = new Map(listDocuments(agent.id).map((d) => [d.id, d.filename]));
    expect(hits.map((h) => names.get(h.document_id))).toEqual(["refunds.txt"]); // "refunded" matches "refund" by its stem
    expect(hits[0].bm25).toBeLessThan(0);
    const otherIds = new Set(listDocuments(other.id).map((d) => d.id));
    expect(hits.some((h) => otherIds.has(h.document_id))).toBe(false);
    expect(keywordRanking(other.id, model(), "refund", 10).every((h) => otherIds.has(h.document_id))).toBe(true);
  });

  it("leaves out a document of another model among the best matches, also when it is the first of them", async () => {
    const agent = newAgent("keyword model");
    const ids = [];
    for (const [i, text] of [
      "refund refund refund policy",
      "refund window of 30 days",
      "a refund reaches the card",
      "shipping times",
    ].entries()) {
      ids.push((await ingest(agent.id, `r${i}.txt`, text)).document_id!);
    }
    const all = keywordRanking(agent.id, model(), "refund", 10);
    expect(all.map((h) => h.document_id)).toEqual(expect.arrayContaining(ids.slice(0, 3)));
    // The best match is being re-embedded with another model: it is not this model's to rank.
    const best = all[0].document_id;
    db().prepare("UPDATE documents SET embedding_model = 'another-model' WHERE id = ?").run(best);
    const rest = all.filter((h) => h.document_id !== best);
    expect(keywordRanking(agent.id, model(), "refund", 10)).toEqual(rest);
    expect(keywordRanking(agent.id, model(), "refund", 1)).toEqual(rest.slice(0, 1));
    db().prepare("UPDATE documents SET embedding_model = ? WHERE id = ?").run(model(), best);
    expect(keywordRanking(agent.id, model(), "refund", 1)).toEqual(all.slice(0, 1));
  });

  it("treats a user's text as words only: quotes, operators, NEAR and a lone star are never FTS syntax", async () => {
    const agent = newAgent("keyword syntax");
    await ingest(agent.id, "sku.txt", "Error E-4411 on SKU-88 means the card was declined. NEAR the till.");
    for (const q of ['"unbalanced', "NEAR(card declined)", "*", "card AND", "OR OR", "sku-88 -card", "col:umn", "^start"]) {
      expect(() => keywordRanking(agent.id, model(), q, 5), q).not.toThrow();
    }
    expect(keywordRanking(agent.id, model(), "E-4411", 5)).toHaveLength(1);
    expect(keywordRanking(agent.id, model(), "*", 5)).toEqual([]);
    expect(ftsTerms('say "hi" NEAR(x)')).toBe('"say" OR "hi" OR "near" OR "x"');
    expect(ftsTerms("?!")).toBeNull();
  });

  it("follows deletes, replacements and documents that are not ready, through the same transactions", async () => {
    const agent = newAgent("keyword lifecycle");
    const first = await ingest(agent.id, "manual.txt", "The blue lamp needs a fuse.");
    expect(keywordRanking(agent.id, model(), "lamp", 5).map((h) => h.document_id)).toEqual([first.document_id]);
    const second = await ingest(agent.id, "manual.txt", "The green lamp needs a bulb.");
    expect(keywordRanking(agent.id, model(), "lamp", 5).map((h) => h.document_id)).toEqual([second.document_id]);
    expect(keywordRanking(agent.id, model(), "fuse", 5)).toEqual([]); // the replaced version's chunks went with it
    // A document still indexing is not found.
    const text = "An indexing article about the lamp.";
    insertDocument(
      {
        agent_id: agent.id,
        filename: "pending.txt",
        type: "txt",
        sha256: "p",
        bytes: text.length,
        chunk_size: 800,
        chunk_overlap: 100,
        text,
        embedding_model: model(),
      },
      chunkText(text, 800, 100),
    );
    expect(keywordRanking(agent.id, model(), "indexing article", 5)).toEqual([]);
    await removeDocument(agent.id, second.document_id!);
    expect(keywordRanking(agent.id, model(), "lamp", 5)).toEqual([]);
  });

  it("counts a word's rarity among the agent's own chunks: other agents' documents never move its scores", async () => {
    const agent = newAgent("keyword rarity");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
    const query = "refund within business hours";
    const before = keywordRanking(agent.id, model(), query, 10);
    expect(before.length).toBeGreaterThan(1);
    // Another agent fills the index with "refund" and "business": in one shared index that
    // would make both words common and change this agent's scores.
    const other = newAgent("keyword rarity other");
    for (let i = 0; i < 12; i++) await ingest(other.id, `r${i}.txt`, `Refund ${i} for business customers. Refunds within ${i} days.`);
    expect(keywordRanking(agent.id, model(), query, 10)).toEqual(before);
    // Its own documents do change them.
    await ingest(agent.id, "more.txt", "Refunds for business customers are handled within hours.");
    expect(keywordRanking(agent.id, model(), query, 10).find((h) => h.document_id === before[0].document_id)?.bm25).not.toBe(
      before[0].bm25,
    );
  });

  it("scores as an index built fresh from the chunks it holds, however many versions were replaced or deleted before", async () => {
    const agent = newAgent("keyword drift");
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
    // Versions come and go: each replaced or deleted one must stop counting in bm25's row count,
    // average length and word counts (a contentless_delete table kept counting them).
    for (let i = 0; i < 6; i++) await ingest(agent.id, "churn.txt", `Refund ${i} for business customers within ${i} hours. `.repeat(20));
    const gone = await ingest(agent.id, "gone.txt", "Refunds refunds refunds within business hours, every hour.");
    await removeDocument(agent.id, gone.document_id!);
    const query = "refund within business hours";
    const served = keywordRanking(agent.id, model(), query, 10);
    expect(served.length).toBeGreaterThan(2);
    // The same chunks indexed once, in a fresh table of the same definition.
    db().exec(`DROP TABLE IF EXISTS temp.fresh; CREATE VIRTUAL TABLE temp.fresh USING ${KEYWORD_TABLE_DEFINITION}`);
    for (const d of listDocuments(agent.id).filter((d) => d.status === "ready")) indexChunksInto(db(), "temp.fresh", d.id);
    const fresh = db()
      .prepare(`SELECT rowid AS id, bm25(fresh) AS bm25 FROM temp.fresh WHERE fresh MATCH ? ORDER BY bm25, rowid LIMIT 10`)
      .all(ftsTerms(query)) as { id: number; bm25: number }[];
    db().exec("DROP TABLE temp.fresh");
    expect(served.map((h) => [h.document_id * MAX_CHUNKS_PER_DOCUMENT + h.chunk_index, h.bm25])).toEqual(fresh.map((r) => [r.id, r.bm25]));
  });

  it("leaves no index behind when its agent is deleted", async () => {
    const agent = newAgent("keyword drop");
    await ingest(agent.id, "a.txt", "The blue lamp needs a fuse.");
    expect(keywordRanking(agent.id, model(), "lamp", 5)).toHaveLength(1);
    deleteAgentRow(agent.id);
    expect(hasKeywordTable(db(), agent.id)).toBe(false);
    expect(keywordRanking(agent.id, model(), "lamp", 5)).toEqual([]);
  });
});
