import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiError, FakeOpenAIServer } from "../../test/fake-openai";

// This file embeds through the OpenAI provider against an OpenAI-compatible server,
// so the provider can be made to fail part-way through a document.
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await new FakeOpenAIServer().start();
  process.env.EMBEDDING_PROVIDER = "openai";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test";
  process.env.OPENAI_EMBEDDING_MODEL = "test-model";
  process.env.OPENAI_EMBEDDING_DIMENSION = "8";
});
afterAll(() => fake.close());

describe("a failed ingest leaves no partial document", () => {
  it("removes the vectors already written and marks the document failed with the reason", async () => {
    const { ingest, newAgent, vectorsOf } = await import("../../test/helpers");
    const { getDocument, listDocuments } = await import("../db/documents");
    const { searchAgentDocuments } = await import("../retrieval/retrieve");
    const agent = newAgent("failing");
    const ok = await ingest(agent.id, "ok.txt", "A short article that indexes fine.");
    expect(ok.status).toBe("ready");

    // 100 chunks: the first slice of 64 is embedded and written, the second fails.
    const before = fake.requests.length;
    fake.queue.push(
      () => false,
      (_req, res) => {
        apiError(res, 400, "input too long");
        return true;
      },
    );
    const res = await ingest(agent.id, "long.txt", "abcdefghij".repeat(200), 20, 0);

    expect(res).toMatchObject({ outcome: "failed", status: "failed" });
    expect(fake.requests.length).toBe(before + 2);
    const doc = getDocument(agent.id, res.document_id!);
    expect(doc.status).toBe("failed");
    expect(doc.chunk_count).toBe(0);
    expect(doc.error).toMatch(/400|input too long/);
    expect(await vectorsOf(agent.id, doc.id)).toEqual([]);
    expect(
      listDocuments(agent.id)
        .filter((d) => d.status === "ready")
        .map((d) => d.filename),
    ).toEqual(["ok.txt"]);
    const results = await searchAgentDocuments(agent.id, "abcdefghij", 50);
    expect(results.map((r) => r.filename)).toEqual(["ok.txt"]);
  });

  it("sends the query through the same model as the chunks", async () => {
    const { ingest, newAgent } = await import("../../test/helpers");
    const { searchAgentDocuments } = await import("../retrieval/retrieve");
    const agent = newAgent("same model");
    await ingest(agent.id, "a.txt", "same model article");
    const before = fake.requests.length;
    await searchAgentDocuments(agent.id, "which model", 1);
    expect(fake.requests.slice(before).map((r) => [r.body.model, r.body.input])).toEqual([["test-model", ["which model"]]]);
  });
});
