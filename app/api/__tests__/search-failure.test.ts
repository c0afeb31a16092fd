import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "@/lib/testing/fake-openai";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI(8);
  process.env.EMBEDDING_PROVIDER = "openai";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test-secret";
  process.env.OPENAI_EMBEDDING_MODEL = "fake-embed";
  process.env.OPENAI_EMBEDDING_DIMENSION = "8";
});
afterAll(() => fake.close());

describe("search when the embedding provider fails", () => {
  it("answers 500 and still commits a failed ToolCall", async () => {
    const search = await import("../agents/[id]/documents/search/route");
    const { call } = await import("@/lib/testing/http");
    const { ingest, newAgent } = await import("@/lib/testing/helpers");
    const { recentToolCalls } = await import("@/lib/tool-calls");
    const agent = newAgent("provider down");
    await ingest(agent.id, "a.txt", "an article");

    fake.failWith = () => ({ status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } });
    const res = await call(search.POST, { json: { query: "anything", top_k: 3 }, params: { id: String(agent.id) } });
    fake.failWith = () => null;

    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("embedding_failed");
    expect(JSON.stringify(res.body)).not.toContain("sk-test-secret");
    const [logged] = recentToolCalls(agent.id, 1);
    expect(logged).toMatchObject({ tool: "document_search", ok: 0, result_count: 0 });
    expect(logged.error).toMatch(/401|key/i);
  });
});
