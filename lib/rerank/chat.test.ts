import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { apiError, FakeOpenAIServer, sendJson, type RecordedRequest } from "../../test/fake-openai";
import { RerankError } from "./errors";
import type { RerankCandidate } from "./types";

// The chat model on an OpenAI-compatible stand-in; its answers are queued per test. Small bounds,
// set before anything reads env() (which keeps the first values it reads).
const KEY = "sk-test-rerank-chat-key-987654";
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await new FakeOpenAIServer().start();
  process.env.OPENAI_CHAT_MODEL = "test-chat";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = KEY;
  process.env.RERANK_CHAT_MAX_CANDIDATES = "3";
  process.env.RERANK_CHAT_MAX_CHARS = "12";
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
  fake.queue.length = 0;
  vi.restoreAllMocks();
});

const reranker = async () => {
  const r = (await import("./chat")).chatReranker();
  if (!r) throw new Error("no reranker");
  return r;
};

const texts = ["alpha passage that runs long", "bravo", "charlie passage", "delta", "echo"];
const pool: RerankCandidate[] = texts.map((text, i) => ({
  document_id: i + 1,
  chunk_index: 0,
  filename: `doc${i + 1}.md`,
  text,
  distance: 0.1 * (i + 1),
  pool_rank: i + 1,
  vector_rank: i + 1,
  keyword_rank: null,
  bm25: null,
}));

/** Answers the next chat completion with `content`. */
const answerWith = (content: string) =>
  fake.queue.push((_rec, res) =>
    sendJson(res, 200, {
      id: "chatcmpl-rerank",
      object: "chat.completion",
      model: "test-chat",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    }),
  );

/** The passages a request showed the model, as numbered. */
function passagesOf(rec: RecordedRequest): string[] {
  const messages = rec.body.messages as { role: string; content: string }[];
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  return user
    .slice(user.indexOf("Passages:\n") + "Passages:\n".length)
    .split("\n\n")
    .map((p) => p.replace(/^\[\d+\] /, ""));
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err as RerankError,
  );

describe("the chat reranker", () => {
  it("asks once, with the first RERANK_CHAT_MAX_CANDIDATES candidates cut to RERANK_CHAT_MAX_CHARS, for structured scores", async () => {
    answerWith(JSON.stringify({ scores: [2, 9, 5] }));
    const r = await reranker();
    expect(r).toMatchObject({ name: "chat", version: "chat test-chat" });
    await r.score("which passage is bravo", [], pool);
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body).toMatchObject({
      model: "test-chat",
      temperature: 0,
      response_format: { type: "json_schema", json_schema: { name: "relevance_scores", strict: true } },
    });
    const user = (req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")?.content;
    expect(user).toContain("which passage is bravo");
    expect(passagesOf(req)).toEqual(["alpha passag", "bravo", "charlie pass"]);
  });

  it("orders the judged candidates by their scores and keeps the rest below them in pool order", async () => {
    answerWith(JSON.stringify({ scores: [2, 9, 0] }));
    const scores = (await (await reranker()).score("q", [], pool)).map((s) => s.score);
    expect(scores.slice(0, 3)).toEqual([2, 9, 0]);
    // The pool sorted by score, ties by pool order, as the rerank stage sorts it.
    const order = pool.map((c, i) => ({ text: c.text, score: scores[i], i })).sort((a, b) => b.score - a.score || a.i - b.i);
    expect(order.map((c) => c.text)).toEqual(["bravo", "alpha passage that runs long", "charlie passage", "delta", "echo"]);
    expect(scores[3]).toBeLessThan(0);
    expect(scores[4]).toBeLessThan(scores[3]);
  });

  it("judges a pool within the bound whole", async () => {
    answerWith(JSON.stringify({ scores: [1, 3] }));
    expect(await (await reranker()).score("q", [], pool.slice(0, 2))).toEqual([{ score: 1 }, { score: 3 }]);
    expect(passagesOf(fake.requests[0])).toEqual(["alpha passag", "bravo"]);
  });

  it.each([
    ["too few scores", JSON.stringify({ scores: [2, 9] })],
    ["a score that is not a whole number", JSON.stringify({ scores: [2, 9.5, 1] })],
    ["a score past 10", JSON.stringify({ scores: [2, 11, 1] })],
    ["no JSON", "bravo is best"],
  ])("fails with reranker_failed naming the model on %s", async (_what, content) => {
    answerWith(content);
    const err = await failure((await reranker()).score("q", [], pool));
    expect(err).toBeInstanceOf(RerankError);
    expect(err).toMatchObject({ code: "reranker_failed", status: 502 });
    expect(err.message).toBe("The chat model test-chat did not score the 3 candidates as asked (one whole number from 0 to 10 each).");
  });

  it("fails naming the model and endpoint when the provider refuses, and logs its text without the key", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    fake.queue.push((_rec, res) => apiError(res, 400, `bad request for key ${KEY}`));
    const err = await failure((await reranker()).score("q", [], pool));
    expect(err).toBeInstanceOf(RerankError);
    expect(err.message).toBe(
      `The chat model test-chat at ${fake.url} answered 400 when asked to rerank the candidates; the details are in the server log.`,
    );
    const logged = log.mock.calls.flat().join(" ");
    expect(logged).toContain("bad request for key");
    expect(logged).not.toContain(KEY);
  });
});
