import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseEnv } from "../env.mjs";
import { RerankError } from "./errors";
import { httpReranker } from "./http";
import type { RerankCandidate } from "./types";

// A stand-in reranking endpoint on 127.0.0.1: each test says how it answers, and reads what it got.
interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}
let answer: (req: Received, res: http.ServerResponse) => void;
const received: Received[] = [];
const held: http.ServerResponse[] = [];
let server: http.Server;
let origin = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString() || "{}"),
      };
      received.push(rec);
      answer(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  received.length = 0;
  vi.restoreAllMocks();
});

const KEY = "sk-rerank-secret-4242";
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const pool: RerankCandidate[] = ["refunds take 5 days", "support answers in 24 hours", "reset a password"].map((text, i) => ({
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

const reranker = (vars: Record<string, string>) => {
  const r = httpReranker(parseEnv(vars));
  if (!r) throw new Error("no reranker");
  return r;
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err as RerankError,
  );

describe("the http reranker", () => {
  it("is off without RERANK_BASE_URL, and RERANK_PROTOCOL takes cohere or tei only", () => {
    expect(httpReranker(parseEnv({}))).toBeNull();
    expect(parseEnv({}).RERANK_PROTOCOL).toBe("cohere");
    expect(() => parseEnv({ RERANK_PROTOCOL: "jina" })).toThrow(/RERANK_PROTOCOL/);
  });

  it("posts Cohere's request to {base}/rerank with the key, and maps results by index when they come back by relevance", async () => {
    answer = (_req, res) =>
      json(res, 200, {
        results: [
          { index: 2, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.5 },
          { index: 1, relevance_score: 0.1 },
        ],
      });
    const r = reranker({ RERANK_BASE_URL: `${origin}/v1/`, RERANK_API_KEY: KEY, RERANK_MODEL: "rerank-v3.5" });
    expect(await r.score("how do I reset my password", [], pool)).toEqual([{ score: 0.5 }, { score: 0.1 }, { score: 0.9 }]);
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req).toMatchObject({ method: "POST", path: "/v1/rerank" });
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers["content-type"]).toMatch(/^application\/json/);
    expect(req.body).toEqual({ model: "rerank-v3.5", query: "how do I reset my password", documents: pool.map((c) => c.text), top_n: 3 });
    expect(r).toMatchObject({ name: "http", version: `http rerank-v3.5 at ${origin}/v1/rerank` });
  });

  it("sends no model and no authorization when neither is set", async () => {
    answer = (_req, res) => json(res, 200, { results: pool.map((_, index) => ({ index, relevance_score: index })) });
    const r = reranker({ RERANK_BASE_URL: origin });
    await r.score("q", [], pool);
    expect(received[0].path).toBe("/rerank");
    expect(received[0].headers.authorization).toBeUndefined();
    expect(received[0].body).not.toHaveProperty("model");
    expect(r.version).toBe(`http default at ${origin}/rerank`);
  });

  it("posts TEI's request and reads TEI's array of {index, score}", async () => {
    answer = (_req, res) =>
      json(res, 200, [
        { index: 1, score: 0.8 },
        { index: 2, score: 0.3 },
        { index: 0, score: 0.02 },
      ]);
    const r = reranker({ RERANK_BASE_URL: origin, RERANK_PROTOCOL: "tei" });
    expect(await r.score("support hours", [], pool)).toEqual([{ score: 0.02 }, { score: 0.8 }, { score: 0.3 }]);
    expect(received[0].path).toBe("/rerank");
    expect(received[0].body).toEqual({ query: "support hours", texts: pool.map((c) => c.text), raw_scores: false });
  });

  it("fails with reranker_failed naming the endpoint, never the key, credentials or query, when it answers 502", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    answer = (_req, res) => json(res, 502, { message: `upstream failed for key ${KEY}` });
    const base = `http://someone:hunter2secret@127.0.0.1:${new URL(origin).port}/v1?tenant=acme`;
    const err = await failure(reranker({ RERANK_BASE_URL: base, RERANK_API_KEY: KEY }).score("q", [], pool));
    expect(err).toBeInstanceOf(RerankError);
    expect(err).toMatchObject({ code: "reranker_failed", status: 502 });
    expect(err.message).toBe(`The reranker at ${origin}/v1/rerank answered 502; the details are in the server log.`);
    expect(received[0].path).toBe("/v1/rerank?tenant=acme");
    const logged = log.mock.calls.flat().join(" ");
    expect(logged).toContain("upstream failed for key [redacted]");
    expect(logged).not.toContain(KEY);
    expect(logged).not.toContain("hunter2secret");
  });

  it("sends a URL's user and password as Basic auth when no key is set", async () => {
    answer = (_req, res) => json(res, 200, { results: pool.map((_, index) => ({ index, relevance_score: 1 })) });
    await reranker({ RERANK_BASE_URL: `http://someone:hunter2secret@127.0.0.1:${new URL(origin).port}` }).score("q", [], pool);
    expect(received[0].headers.authorization).toBe(`Basic ${Buffer.from("someone:hunter2secret").toString("base64")}`);
  });

  it("fails with a timeout when the endpoint never answers", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    answer = (_req, res) => void held.push(res);
    const err = await failure(reranker({ RERANK_BASE_URL: origin, RERANK_TIMEOUT_MS: "200" }).score("q", [], pool));
    expect(err).toBeInstanceOf(RerankError);
    expect(err.message).toBe(`The reranker at ${origin}/rerank did not answer within 0.2 s; the details are in the server log.`);
  });

  it("fails when the endpoint cannot be reached", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(reranker({ RERANK_BASE_URL: `http://127.0.0.1:${port}` }).score("q", [], pool));
    expect(err).toBeInstanceOf(RerankError);
    expect(err.message).toBe(`The reranker at http://127.0.0.1:${port}/rerank could not be reached; the details are in the server log.`);
  });

  it.each([
    [
      "a missing index",
      {
        results: [
          { index: 0, relevance_score: 1 },
          { index: 2, relevance_score: 1 },
        ],
      },
    ],
    ["an index twice", { results: [0, 1, 1].map((index) => ({ index, relevance_score: 1 })) }],
    ["an index out of range", { results: [0, 1, 3].map((index) => ({ index, relevance_score: 1 })) }],
    ["a score that is not a number", [0, 1, 2].map((index) => ({ index, score: index === 1 ? "high" : 1 }))],
    ["no scores at all", { id: "x" }],
  ])("fails on an answer with %s", async (_what, body) => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    answer = (_req, res) => json(res, 200, body);
    const err = await failure(reranker({ RERANK_BASE_URL: origin }).score("q", [], pool));
    expect(err).toBeInstanceOf(RerankError);
    expect(err.message).toBe(
      `The reranker at ${origin}/rerank answered with a body that is not one score per candidate; the details are in the server log.`,
    );
  });

  it("asks nothing for an empty pool", async () => {
    expect(await reranker({ RERANK_BASE_URL: origin }).score("q", [], [])).toEqual([]);
    expect(received).toHaveLength(0);
  });
});
