import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeOpenAIServer, apiError, sendJson } from "@/test/fake-openai";

// With OPENAI_CHAT_MODEL the chat model writes the questions (a stand-in OpenAI-compatible server
// here; the paid API is not reachable). Set before lib/ is imported: env() is read once.
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await new FakeOpenAIServer().start();
  process.env.OPENAI_CHAT_MODEL = "test-chat";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test-generate-key-123456";
});
afterAll(() => fake.close());

const lib = async () => ({
  ...(await import("@/test/helpers")),
  ...(await import("@/test/http")),
  ...(await import("@/lib/evaluation/generate/chat")),
  ...(await import("@/lib/db/chunks")),
  generate: await import("@/app/api/agents/[id]/pairs/generate/route"),
  pairs: await import("@/app/api/agents/[id]/pairs/route"),
});
const demo = (name: string) => fs.readFileSync(path.join(process.cwd(), "demo", name), "utf8");
const chatRequests = () => fake.requests.filter((r) => r.path === "/v1/chat/completions");
const userMessage = (r: (typeof fake.requests)[number]) =>
  (r.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;

async function setup(name: string, files: string[]) {
  const { newAgent, ingest } = await lib();
  const agent = newAgent(name);
  const ids: number[] = [];
  for (const f of files) ids.push((await ingest(agent.id, f, demo(f))).document_id!);
  return { id: String(agent.id), ids };
}

describe("POST /api/agents/{id}/pairs/generate with a chat model", () => {
  it("asks the model for n questions per document from its first chunks (structured output) and proposes them labeled with that document", async () => {
    const { call, generate, pairs, documentChunks, CHAT_TEXT_BUDGET } = await lib();
    const files = ["refund-policy.md", "integrations.md"];
    const a = await setup("generate chat", files);
    fake.requests.length = 0;
    const res = await call(generate.POST, { params: { id: a.id }, json: { documents: "all", per_document: 2 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ generator: "test-chat", proposed: 4, skipped: 0 });

    const requests = chatRequests();
    expect(requests).toHaveLength(2);
    for (const r of requests) {
      expect(r.body).toMatchObject({
        model: "test-chat",
        response_format: { type: "json_schema", json_schema: { name: "questions", strict: true } },
      });
      const user = userMessage(r);
      const file = /^Document: (.*)$/m.exec(user)![1];
      expect(user).toContain("Write 2 questions.");
      const chunks = documentChunks(a.ids[files.indexOf(file)]).map((c) => c.text);
      expect(chunks.length, "the article spans several chunks").toBeGreaterThan(1);
      expect(user).toContain(chunks[0]);
      expect(user.slice(user.indexOf("Text:\n") + 6).length).toBeLessThanOrEqual(CHAT_TEXT_BUDGET + 2 * chunks.length);
    }
    const stored = (await call(pairs.GET, { method: "GET", params: { id: a.id } })).body.pairs;
    expect(
      stored.map((p: { query: string; expected: string; source: string; status: string }) => [p.expected, p.query, p.source, p.status]),
    ).toEqual([
      ["refund-policy.md", "What does refund-policy.md say about Refunds Relay is sold as?", "generated", "proposed"],
      ["refund-policy.md", "What does refund-policy.md say about This article explains when you?", "generated", "proposed"],
      ["integrations.md", "What does integrations.md say about Integrations Relay connects to the?", "generated", "proposed"],
      ["integrations.md", "What does integrations.md say about Connecting an integration Connect Slack?", "generated", "proposed"],
    ]);
  });

  it("keeps the model's questions trimmed and unique, and skips those that exist already", async () => {
    const { call, generate } = await lib();
    const a = await setup("generate chat dedupe", ["support-sla.md"]);
    const questions = fake.questions;
    fake.questions = () => ["  How fast is support?  ", "how fast is SUPPORT", "", "Is there phone support?", "x".repeat(2001)];
    try {
      const first = await call(generate.POST, { params: { id: a.id }, json: { documents: a.ids, per_document: 5 } });
      expect(first.body).toMatchObject({ proposed: 2, skipped: 0 });
      const again = await call(generate.POST, { params: { id: a.id }, json: { documents: a.ids, per_document: 5 } });
      expect(again).toMatchObject({ status: 200, body: { proposed: 0, skipped: 2 } });
    } finally {
      fake.questions = questions;
    }
  });

  it("answers 500 chat_failed when the model fails or answers out of shape, stores nothing, and never shows the key", async () => {
    const { call, generate, pairs } = await lib();
    const a = await setup("generate chat fails", ["data-export.md"]);
    const failing = (rec: { path: string }, res: Parameters<typeof apiError>[0]) =>
      rec.path === "/v1/chat/completions" ? (apiError(res, 500, "boom with sk-test-generate-key-123456"), true) : false;
    fake.queue.push(failing, failing);
    const res = await call(generate.POST, { params: { id: a.id }, json: { documents: "all", per_document: 3 } });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({
      code: "chat_failed",
      message: expect.stringMatching(/test-chat at .* answered 500 when asked to write questions for data-export\.md/),
    });
    expect(JSON.stringify(res.body)).not.toContain("sk-test-generate-key");

    fake.queue.push((rec, r) => {
      if (rec.path !== "/v1/chat/completions") return false;
      sendJson(r, 200, { choices: [{ index: 0, message: { role: "assistant", content: '{"questions": "one question"}' } }] });
      return true;
    });
    const shape = await call(generate.POST, { params: { id: a.id }, json: { documents: "all", per_document: 3 } });
    expect(shape).toMatchObject({
      status: 500,
      body: { error: { code: "chat_failed", message: expect.stringMatching(/did not write questions for data-export\.md as asked/) } },
    });
    expect((await call(pairs.GET, { method: "GET", params: { id: a.id } })).body.pairs).toEqual([]);
  });
});
