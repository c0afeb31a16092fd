import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiError, FakeOpenAIServer } from "@/test/fake-openai";

let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await new FakeOpenAIServer().start();
  process.env.EMBEDDING_PROVIDER = "openai";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test-secret";
  process.env.OPENAI_EMBEDDING_MODEL = "test-model";
  process.env.OPENAI_EMBEDDING_DIMENSION = "8";
});
afterAll(() => fake.close());

describe("search when the embedding provider fails", () => {
  it("answers 500 and still commits a failed ToolCall", async () => {
    const search = await import("@/pages/api/agents/[id]/documents/search");
    const { call } = await import("@/test/http");
    const { ingest, newAgent } = await import("@/test/helpers");
    const { recentToolCalls } = await import("@/lib/db/tool-calls");
    const agent = newAgent("provider down");
    await ingest(agent.id, "a.txt", "an article");

    fake.queue.push((_req, res) => {
      apiError(res, 401, "Incorrect API key provided");
      return true;
    });
    const res = await call(search.POST, { json: { query: "anything", top_k: 3 }, params: { id: String(agent.id) } });

    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("embedding_failed");
    expect(JSON.stringify(res.body)).not.toContain("sk-test-secret");
    const [logged] = recentToolCalls(agent.id, 1);
    expect(logged).toMatchObject({ tool: "document_search", ok: 0, result_count: 0 });
    expect(logged.error).toMatch(/401|key/i);
  });
});
