import http from "node:http";
import { inspect } from "node:util";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiError, FakeOpenAIServer, fakeVector, sendJson } from "../../../test/fake-openai";
import { EmbeddingError } from "../types";
import { estimateTokens, MAX_INPUT_CHARS, MAX_TOKENS_PER_REQUEST, OpenAIEmbedder, type OpenAIEmbedderOptions } from "./embedder";

const KEY = "sk-test-SECRET-key-0123456789";
let server: FakeOpenAIServer;

beforeAll(async () => {
  server = await new FakeOpenAIServer().start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.queue.length = 0;
  server.shuffle = false;
  server.alwaysFloat = false;
});

function embedder(opts: Partial<OpenAIEmbedderOptions> = {}) {
  return new OpenAIEmbedder({ apiKey: KEY, baseURL: server.url, model: "test-model", retryBaseMs: 1, ...opts });
}

/** A sleep that returns at once and keeps the delays it was asked for. */
function recordedSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

async function failure(p: Promise<unknown>): Promise<EmbeddingError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmbeddingError);
  const e = err as EmbeddingError;
  expect(e.provider).toBe("openai");
  // The key must not leak through the message, the cause chain or a logged dump.
  expect(e.message).not.toContain(KEY);
  expect(inspect(e, { depth: 10 })).not.toContain(KEY);
  return e;
}

describe("OpenAIEmbedder: requests", () => {
  it("sends model, input array, bearer key and an explicit encoding_format", async () => {
    const out = await embedder().embed(["hello world", "second"]);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/embeddings");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body.model).toBe("test-model");
    expect(req.body.input).toEqual(["hello world", "second"]);
    expect(req.body.encoding_format).toBe("float"); // default for a custom baseURL
    expect(req.body).not.toHaveProperty("dimensions");
    expect(out).toEqual([fakeVector("hello world", 8), fakeVector("second", 8)]);
  });

  it("decodes base64 responses exactly", async () => {
    const e = embedder({ encodingFormat: "base64" });
    const out = await e.embed(["a", "bb", "ccc"]);
    expect(server.requests[0].body.encoding_format).toBe("base64");
    expect(out).toEqual(["a", "bb", "ccc"].map((t) => fakeVector(t, 8)));
  });

  it("accepts floats when a server ignores encoding_format: base64", async () => {
    server.alwaysFloat = true;
    const out = await embedder({ encodingFormat: "base64" }).embed(["x", "y"]);
    expect(out).toEqual([fakeVector("x", 8), fakeVector("y", 8)]);
  });

  it("asks for base64 by default against the OpenAI API (custom fetch routes it to the fake)", async () => {
    const seen: string[] = [];
    const e = new OpenAIEmbedder({
      apiKey: KEY,
      model: "text-embedding-3-small",
      retryBaseMs: 1,
      fetch: (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        seen.push(url);
        return fetch(url.replace("https://api.openai.com/v1", server.url), init);
      },
    });
    expect(e.dimension).toBe(1536);
    const [v] = await e.embed(["official"]);
    expect(seen).toEqual(["https://api.openai.com/v1/embeddings"]);
    expect(server.requests[0].body.encoding_format).toBe("base64");
    expect(v).toEqual(fakeVector("official", 1536));
  });

  it("sends `dimensions` for shortened text-embedding-3 vectors", async () => {
    const e = embedder({ model: "text-embedding-3-small", dimension: 256 });
    expect(e.dimension).toBe(256);
    const [v] = await e.embed(["short"]);
    expect(server.requests[0].body.dimensions).toBe(256);
    expect(v).toHaveLength(256);
  });

  it("knows OpenAI model dimensions and rejects impossible ones", () => {
    expect(embedder({ model: "text-embedding-3-small" }).dimension).toBe(1536);
    expect(embedder({ model: "text-embedding-3-large" }).dimension).toBe(3072);
    expect(embedder({ model: "text-embedding-ada-002" }).dimension).toBe(1536);
    expect(() => embedder({ model: "text-embedding-ada-002", dimension: 512 })).toThrow(EmbeddingError);
    expect(() => embedder({ model: "text-embedding-3-small", dimension: 4096 })).toThrow(EmbeddingError);
    expect(() => embedder({ dimension: 0 })).toThrow(EmbeddingError);
    expect(() => embedder({ apiKey: "  " })).toThrow(/OPENAI_API_KEY/);
  });

  it("returns [] for no input without calling the server", async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("does not send blank inputs; they get a fixed unit vector", async () => {
    const out = await embedder().embed(["", "hello", "  \n"]);
    expect(server.requests[0].body.input).toEqual(["hello"]);
    const unit = [1, 0, 0, 0, 0, 0, 0, 0];
    expect(out).toEqual([unit, fakeVector("hello", 8), unit]);
  });
});

describe("OpenAIEmbedder: dimension discovery", () => {
  it("throws on `dimension` until init() probes the server once", async () => {
    server.dims["custom-model"] = 5;
    const e = embedder({ model: "custom-model" });
    expect(e.hasDimension).toBe(false);
    expect(() => e.dimension).toThrow(/init\(\)/);
    await Promise.all([e.init(), e.init()]);
    expect(e.dimension).toBe(5);
    await e.init();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.input).toHaveLength(1);
  });

  it("learns the dimension from the first embed() and enforces it afterwards", async () => {
    server.dims["custom-model"] = 5;
    const e = embedder({ model: "custom-model" });
    await e.embed(["a"]);
    expect(e.dimension).toBe(5);
    server.dims["custom-model"] = 6;
    const err = await failure(e.embed(["b"]));
    expect(err.message).toMatch(/6-dimensional.*5 were expected/);
  });

  it("needs no probe when the dimension is configured", async () => {
    const e = embedder({ model: "custom-model", dimension: 7 });
    await e.init();
    expect(e.dimension).toBe(7);
    expect(server.requests).toHaveLength(0);
  });

  it("reports a failed probe as EmbeddingError and can retry init()", async () => {
    const e = embedder({ model: "custom-model", maxRetries: 0 });
    server.dims["custom-model"] = 3;
    server.queue.push((_req, res) => apiError(res, 503, "warming up"));
    await failure(e.init());
    await e.init();
    expect(e.dimension).toBe(3);
  });
});

describe("OpenAIEmbedder: batching and order", () => {
  it("splits 5,000 inputs into requests of at most 2,048", async () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `chunk number ${i}`);
    const out = await embedder().embed(texts);
    expect(server.requests.map((r) => r.body.input!.length)).toEqual([2048, 2048, 904]);
    expect(server.requests.flatMap((r) => r.body.input)).toEqual(texts);
    expect(out).toEqual(texts.map((t) => fakeVector(t, 8)));
  });

  it("splits large inputs by the per-request token budget", async () => {
    const texts = Array.from({ length: 100 }, (_, i) => `${i}:`.padEnd(MAX_INPUT_CHARS, "lorem ipsum "));
    const out = await embedder().embed(texts);
    const sizes = server.requests.map((r) => r.body.input!.length);
    expect(sizes).toEqual([37, 37, 26]); // 8,000 estimated tokens each, 300,000 per request
    for (const r of server.requests) {
      const tokens = r.body.input!.reduce((s, t) => s + estimateTokens(t), 0);
      expect(tokens).toBeLessThanOrEqual(MAX_TOKENS_PER_REQUEST);
    }
    expect(out).toEqual(texts.map((t) => fakeVector(t, 8)));
  });

  it("truncates over-long inputs, never splitting a surrogate pair", async () => {
    const long = "x".repeat(30_000);
    const accented = "é".repeat(10_000);
    const emoji = "🙂".repeat(5_000);
    await embedder().embed([long, accented, emoji]);
    const [a, b, c] = server.requests[0].body.input!;
    expect(a).toHaveLength(MAX_INPUT_CHARS);
    expect(estimateTokens(b)).toBeLessThanOrEqual(8_000);
    expect(b.length).toBeGreaterThan(5_000);
    expect(c.length % 2).toBe(0);
    expect(c).toBe("🙂".repeat(c.length / 2));
  });

  it("keeps input order when the server returns data shuffled", async () => {
    server.shuffle = true;
    const texts = Array.from({ length: 40 }, (_, i) => `text ${i}`);
    const out = await embedder().embed(texts);
    expect(out).toEqual(texts.map((t) => fakeVector(t, 8)));
  });
});

describe("OpenAIEmbedder: retries", () => {
  it("retries a 429 with retry-after: 0, then succeeds", async () => {
    server.queue.push((_req, res) => apiError(res, 429, "Rate limit reached", "rate_limit_exceeded", { "retry-after": "0" }));
    const { waits, sleep } = recordedSleep();
    const out = await embedder({ retryBaseMs: 5_000, sleep }).embed(["a"]);
    expect(waits).toEqual([0]); // the header, not the 5 s backoff
    expect(server.requests).toHaveLength(2);
    expect(out).toEqual([fakeVector("a", 8)]);
  });

  it("honours retry-after-ms", async () => {
    server.queue.push((_req, res) => apiError(res, 429, "slow down", null, { "retry-after-ms": "150" }));
    const { waits, sleep } = recordedSleep();
    await embedder({ sleep }).embed(["a"]);
    expect(waits).toEqual([150]);
    expect(server.requests).toHaveLength(2);
  });

  it("retries a 500, then succeeds", async () => {
    server.queue.push((_req, res) => apiError(res, 500, "The server had an error"));
    const out = await embedder().embed(["a", "b"]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body.input).toEqual(["a", "b"]);
    expect(out).toEqual([fakeVector("a", 8), fakeVector("b", 8)]);
  });

  it("retries a dropped connection, then succeeds", async () => {
    server.queue.push((req, res) => {
      res.socket?.destroy();
      return true;
    });
    const out = await embedder().embed(["a"]);
    expect(server.requests).toHaveLength(2);
    expect(out).toEqual([fakeVector("a", 8)]);
  });

  it("gives up after maxRetries with an EmbeddingError", async () => {
    for (let i = 0; i < 10; i++) server.queue.push((_req, res) => apiError(res, 503, "overloaded"));
    const err = await failure(embedder({ maxRetries: 2 }).embed(["a"]));
    expect(server.requests).toHaveLength(3);
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/503.*after 2 retries/);
  });

  it("uses 4 retries by default", async () => {
    for (let i = 0; i < 10; i++) server.queue.push((_req, res) => apiError(res, 502, "bad gateway"));
    await failure(embedder().embed(["a"]));
    expect(server.requests).toHaveLength(5);
  });

  it("does not retry 429 insufficient_quota", async () => {
    server.queue.push((_req, res) => apiError(res, 429, "You exceeded your current quota", "insufficient_quota"));
    const err = await failure(embedder().embed(["a"]));
    expect(server.requests).toHaveLength(1);
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/quota/);
  });

  it("reports an unreachable server after retrying", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = new OpenAIEmbedder({
      apiKey: KEY,
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: "m",
      dimension: 4,
      maxRetries: 2,
      retryBaseMs: 1,
    });
    const err = await failure(e.embed(["a"]));
    expect(err.status).toBeUndefined();
    expect(err.message).toMatch(/could not connect \(ECONNREFUSED\) after 2 retries/);
    expect(err.message).toContain(`127.0.0.1:${port}`);
  });
});

describe("OpenAIEmbedder: errors", () => {
  it("turns 401 into an EmbeddingError about the key, without retrying or leaking it", async () => {
    server.queue.push((_req, res) =>
      apiError(
        res,
        401,
        `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com.`,
        "invalid_api_key",
      ),
    );
    const err = await failure(embedder().embed(["a"]));
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/API key was rejected \(401\)/);
    expect(err.message).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(1);
  });

  it("turns 404 into an EmbeddingError naming the model", async () => {
    const err = await failure(embedder({ model: "no-such-model", dimension: 8 }).embed(["a"]));
    expect(err.status).toBe(404);
    expect(err.message).toContain(`"no-such-model" was not found (404)`);
    expect(server.requests).toHaveLength(1);
  });

  it("turns 400 into an EmbeddingError with the (redacted) server message", async () => {
    server.queue.push((_req, res) =>
      apiError(res, 400, `This model's maximum context length is 8192 tokens (key ${KEY}, sk-other-abcdef1234)`),
    );
    const err = await failure(embedder().embed(["a"]));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/too long.*maximum context length/);
    expect(err.message).not.toContain("sk-other-abcdef1234");
    expect(server.requests).toHaveLength(1);
  });

  it("rejects a response with the wrong number of vectors", async () => {
    server.queue.push((req, res, s) => {
      const body = s.embeddingsBody(req);
      body.data.pop();
      sendJson(res, 200, body);
    });
    const err = await failure(embedder().embed(["a", "b", "c"]));
    expect(err.message).toMatch(/malformed.*2 vectors for 3 inputs/);
    expect(server.requests).toHaveLength(1);
  });

  it("rejects vectors of the wrong dimension", async () => {
    server.queue.push((req, res, s) => sendJson(res, 200, s.embeddingsBody({ ...req, body: { ...req.body, dimensions: 4 } })));
    const err = await failure(embedder({ dimension: 8 }).embed(["a"]));
    expect(err.message).toMatch(/4-dimensional vectors, but 8 were expected/);
  });

  it("rejects duplicate indexes, missing data and non-numeric values", async () => {
    server.queue.push((req, res, s) => {
      const body = s.embeddingsBody(req);
      body.data[1].index = 0;
      sendJson(res, 200, body);
    });
    expect((await failure(embedder().embed(["a", "b"]))).message).toMatch(/index 0 appears twice/);

    server.queue.push((_req, res) => sendJson(res, 200, { object: "list" }));
    expect((await failure(embedder().embed(["a"]))).message).toMatch(/no "data" array/);

    server.queue.push((_req, res) => sendJson(res, 200, { data: [{ index: 0, embedding: [1, "x", 0, 0, 0, 0, 0, 0] }] }));
    expect((await failure(embedder().embed(["a"]))).message).toMatch(/non-numeric/);

    server.queue.push((_req, res) => sendJson(res, 200, { data: [{ index: 0, embedding: new Array(8).fill(0) }] }));
    expect((await failure(embedder().embed(["a"]))).message).toMatch(/all-zero/);
  });
});
