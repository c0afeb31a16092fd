import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeOpenAIServer, apiError } from "../../test/fake-openai";

// A chat model on an OpenAI-compatible server (a fake one here; the paid API is not reachable):
// it grades the retrieved chunks and writes the answer.
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await new FakeOpenAIServer().start();
  process.env.OPENAI_CHAT_MODEL = "test-chat";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test-chat-key-123456";
});
afterAll(() => fake.close());

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../../test/http")),
  ...(await import("../db/tool-calls")),
  askApi: await import("@/app/api/agents/[id]/ask/route"),
});

async function setup(name: string) {
  const { newAgent, ingest, ARTICLES } = await lib();
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text);
  return agent;
}

describe("ask with a chat model", () => {
  it("grades each retrieved chunk and answers from the relevant ones only, citing them", async () => {
    const { call, askApi } = await lib();
    const agent = await setup("chat answers");
    fake.requests.length = 0;
    const res = await call(askApi.POST, {
      json: { question: "Which payment method receives the refund?", top_k: 3 },
      params: { id: String(agent.id) },
    });
    expect(res.status).toBe(200);
    const { body } = res;
    expect(body).toMatchObject({ refused: false, answer_kind: "generated", graded_by: "test-chat" });
    const relevant = body.retrieved.filter((r: { relevant: boolean }) => r.relevant);
    expect(relevant.map((r: { filename: string }) => r.filename)).toEqual(["refunds.md"]);
    expect(body.retrieved.length).toBeGreaterThan(relevant.length); // some were graded out
    expect(body.citations).toEqual(relevant.map(({ chunk_text: _, relevant: __, ...c }: { chunk_text: string; relevant: boolean }) => c));
    expect(body.answer).toBe("From the sources: [refunds.md #0]");
    const [grade, answer] = fake.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(grade.body).toMatchObject({
      model: "test-chat",
      response_format: { type: "json_schema", json_schema: { name: "relevance", strict: true } },
    });
    expect(answer.body.response_format).toBeUndefined();
    expect(JSON.stringify(answer.body.messages)).not.toContain("Gift cards"); // graded-out chunks never reach the answer
  });

  it("refuses with not_relevant when the grader finds nothing relevant", async () => {
    const { call, askApi, recentRefusals } = await lib();
    const agent = await setup("chat refuses");
    const grade = fake.grade;
    fake.grade = (_q, passages) => passages.map(() => false);
    try {
      const res = await call(askApi.POST, { json: { question: "refund days", top_k: 2 }, params: { id: String(agent.id) } });
      expect(res.body).toMatchObject({ refused: true, reason: "not_relevant", answer: null, citations: [] });
      expect(res.body.retrieved.map((r: { relevant: boolean }) => r.relevant)).toEqual([false, false]);
      expect(recentRefusals(agent.id)[0]).toMatchObject({ outcome: "refused: not_relevant" });
    } finally {
      fake.grade = grade;
    }
  });

  it("answers 500 chat_failed when the chat model fails, logs the failed call, and never shows the key", async () => {
    const { call, askApi, recentToolCalls } = await lib();
    const agent = await setup("chat fails");
    fake.queue.push((rec, res) =>
      rec.path === "/v1/chat/completions" ? (apiError(res, 500, "The server had an error (key sk-test-chat-key-123456)"), true) : false,
    );
    fake.queue.push((rec, res) => (rec.path === "/v1/chat/completions" ? (apiError(res, 500, "still failing"), true) : false));
    const res = await call(askApi.POST, { json: { question: "refund days" }, params: { id: String(agent.id) } });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("chat_failed");
    expect(res.body.error.message).toMatch(
      /test-chat at .* answered 500 when asked to grade the retrieved chunks; the details are in the server log/,
    );
    expect(res.body.error.message).not.toContain("The server had an error");
    expect(JSON.stringify(res.body)).not.toContain("sk-test-chat-key-123456");
    expect(recentToolCalls(agent.id, 1)[0]).toMatchObject({ tool: "ask", ok: 0, outcome: "failed" });
    // A grading that does not fit the chunks is a failure of the model, not an answer.
    fake.queue.push((rec, res) => {
      if (rec.path !== "/v1/chat/completions") return false;
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: '{"relevant":[true]}' } }] }));
      return true;
    });
    const odd = await call(askApi.POST, { json: { question: "refund days", top_k: 3 }, params: { id: String(agent.id) } });
    expect(odd.status).toBe(500);
    expect(odd.body.error.message).toMatch(/did not grade the 3 chunks/);
  });
});
