import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeOpenAIServer } from "../../test/fake-openai";

// The rerank stage through the app's routes against a real Chroma and SQLite: a stand-in
// reranking endpoint and a stand-in chat model on 127.0.0.1 (the only stand-ins allowed), MMR,
// and an evaluation run that records its reranker.

let fake: FakeOpenAIServer;
let server: http.Server;
const reranked: { query: string; documents: string[] }[] = [];
/** How the stand-in scores: the pool's last candidate first (the reverse of the mode's order). */
let failNext = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as { query: string; documents: string[] };
      reranked.push(body);
      if (failNext) {
        failNext = false;
        res.writeHead(503, { "content-type": "application/json" }).end('{"message":"overloaded"}');
        return;
      }
      const results = body.documents.map((_, index) => ({ index, relevance_score: index / body.documents.length }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake = await new FakeOpenAIServer().start();
  process.env.RERANK_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.OPENAI_CHAT_MODEL = "test-chat";
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test-rerank-chat-1234";
});
afterAll(async () => {
  await fake.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../../test/http")),
  ...(await import("../../lib/db/agents")),
  ...(await import("../../lib/db/pairs")),
  ...(await import("../../lib/db/tool-calls")),
  search: await import("@/pages/api/agents/[id]/documents/search"),
  agentApi: await import("@/app/api/agents/[id]/route"),
  inspectApi: await import("@/app/api/agents/[id]/inspect/route"),
  evalsApi: await import("@/app/api/agents/[id]/evals/route"),
  calibrationApi: await import("@/app/api/agents/[id]/evals/[runId]/calibration/route"),
});

const ARTICLES: Record<string, string> = {
  "router.md": "Router reset: hold the reset button on the router for ten seconds until the lights blink.",
  "router-copy.md": "Router reset: hold the reset button on the router for ten seconds until the lights blink again.",
  "modem.md": "Modem lights: a steady light on the modem means it is online; reset the modem when it blinks.",
  "billing.md": "Invoices are issued on the first day of each billing period and can be downloaded as PDF.",
  "refunds.md": "A refund is available within 30 days of purchase and reaches the original payment method.",
  "sla.md": "Premium customers get a first response from the support team within four business hours.",
};

async function setup(name: string) {
  const { newAgent, ingest } = await lib();
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, file, text);
  return agent;
}

describe("the rerank stage", () => {
  it("http: the endpoint reorders the pool, the search keeps its shape, the inspector and the log say which reranker", async () => {
    const { call, search, agentApi, inspectApi, recentToolCalls } = await lib();
    const agent = await setup("rerank http");
    const params = { id: String(agent.id) };
    const query = { query: "how do I reset the router", top_k: 3 };
    const before = await call(search.POST, { params, json: query });
    // The mode's order of all six chunks: the pool the reranker gets.
    const pool = (await call(search.POST, { params, json: { ...query, top_k: 6 } })).body.results;
    const patched = await call(agentApi.PATCH, { params, method: "PATCH", json: { reranker: "http", rerank_candidates: 6 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ reranker: "http", rerank_candidates: 6 });
    reranked.length = 0;
    const after = await call(search.POST, { params, json: query });
    expect(after.status).toBe(200);
    // One request with the pool: the six chunks in the mode's order.
    expect(reranked).toHaveLength(1);
    expect(reranked[0].query).toBe(query.query);
    expect(reranked[0].documents).toHaveLength(6);
    // The stand-in scores the last of the pool highest: the results are the pool reversed.
    expect(after.body.results.map((r: { filename: string }) => r.filename)).toEqual(
      [...pool]
        .reverse()
        .slice(0, 3)
        .map((r: { filename: string }) => r.filename),
    );
    expect(after.body.results[0].filename).not.toBe(before.body.results[0].filename);
    for (const r of after.body.results)
      expect(Object.keys(r).sort()).toEqual(["chunk_index", "chunk_text", "document_id", "filename", "score"]);
    // The inspector shows where the reranker put each result, and what it was before.
    const inspected = await call(inspectApi.POST, { params, json: { query: query.query, top_k: 3 } });
    expect(inspected.body.reranker).toMatchObject({ name: "http", candidates: 6 });
    expect(inspected.body.reranker.version).toMatch(/^http .* at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank$/);
    expect(inspected.body.results.map((r: { pool_rank: number }) => r.pool_rank)).toEqual([6, 5, 4]);
    expect(inspected.body.results[0].rerank_score).toBeGreaterThan(inspected.body.results[1].rerank_score);
    // The logged call names the reranker in its trace.
    const logged = recentToolCalls(agent.id, 5).find((c) => c.source === "api" && c.ok);
    expect(JSON.parse(logged!.retrieval!).reranker).toMatch(/^http /);
  });

  it("http: a failing endpoint is a 502 reranker_failed, logged, never a silent fallback", async () => {
    const { call, search, updateAgent, recentToolCalls } = await lib();
    const agent = await setup("rerank http fails");
    updateAgent(agent.id, { reranker: "http" });
    failNext = true;
    const res = await call(search.POST, { params: { id: String(agent.id) }, json: { query: "router reset", top_k: 3 } });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("reranker_failed");
    expect(res.body.error.message).toMatch(/answered 503/);
    const failed = recentToolCalls(agent.id, 5).find((c) => !c.ok);
    expect(failed?.error).toMatch(/answered 503/);
  });

  it("chat: the chat model judges the pool, once per query, the first RERANK_CHAT_MAX_CANDIDATES of it", async () => {
    const { call, search, updateAgent } = await lib();
    const agent = await setup("rerank chat");
    updateAgent(agent.id, { reranker: "chat", rerank_candidates: 6 });
    fake.queue.push((rec, res) => {
      if (rec.path !== "/v1/chat/completions") return false;
      const format = rec.body.response_format as { json_schema: { schema: { properties: { scores: { minItems: number } } } } };
      const n = format.json_schema.schema.properties.scores.minItems;
      // The last passage judged the most relevant, every other not at all.
      const scores = Array.from({ length: n }, (_, i) => (i === n - 1 ? 10 : 0));
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          model: "test-chat",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify({ scores }) } }],
        }),
      );
      return true;
    });
    const calls = fake.requests.length;
    const params = { id: String(agent.id) };
    const res = await call(search.POST, { params, json: { query: "what does the modem light mean", top_k: 2 } });
    expect(res.status).toBe(200);
    const chats = fake.requests.slice(calls).filter((r) => r.path === "/v1/chat/completions");
    expect(chats).toHaveLength(1);
    updateAgent(agent.id, { reranker: "none" });
    const pool = (await call(search.POST, { params, json: { query: "what does the modem light mean", top_k: 6 } })).body.results;
    expect(res.body.results[0]).toMatchObject({ document_id: pool[5].document_id, chunk_index: pool[5].chunk_index });
  });

  it("mmr: a copy of the nearest article makes room for another document", async () => {
    const { call, search, updateAgent } = await lib();
    const agent = await setup("rerank mmr");
    const params = { id: String(agent.id) };
    const query = { query: "reset the router", top_k: 2 };
    const plain = (await call(search.POST, { params, json: query })).body.results.map((r: { filename: string }) => r.filename);
    expect(plain.sort()).toEqual(["router-copy.md", "router.md"]);
    updateAgent(agent.id, { reranker: "mmr", mmr_lambda: 0.5 });
    const diverse = (await call(search.POST, { params, json: query })).body.results.map((r: { filename: string }) => r.filename);
    expect(diverse).toHaveLength(2);
    expect(diverse.filter((f: string) => f.startsWith("router")).length).toBe(1);
  });

  it("an evaluation run records its reranker and ranks after it; `reranker: none` ranks without it", async () => {
    const { call, createPair, updateAgent, evalsApi } = await lib();
    const agent = await setup("rerank eval");
    const params = { id: String(agent.id) };
    createPair(agent.id, { query: "modem light blinking", expected_filename: "modem.md" });
    createPair(agent.id, { query: "refund after purchase", expected_filename: "refunds.md" });
    updateAgent(agent.id, { reranker: "http", rerank_candidates: 6 });
    const withIt = await call(evalsApi.POST, { params, json: { k: 3 } });
    const without = await call(evalsApi.POST, { params, json: { k: 3, reranker: "none" } });
    expect(withIt.status).toBe(201);
    expect(withIt.body.settings).toMatchObject({ reranker: "http" });
    expect(withIt.body.settings.reranker_version).toMatch(/^http /);
    expect(without.body.settings).toMatchObject({ reranker: "none", reranker_version: null });
    // The stand-in reverses the pool: the document first without it is last of the six with it.
    const rankOf = (run: { pairs: { query: string; rank: number }[] }, q: string) => run.pairs.find((p) => p.query === q)!.rank;
    for (const q of ["modem light blinking", "refund after purchase"]) {
      expect(rankOf(without.body, q)).toBe(1);
      expect(rankOf(withIt.body, q)).toBe(6);
    }
  });

  it("a cut on the reranker's score drops what it scores below, for the version it was set for, and is calibrated from a run", async () => {
    const { call, search, agentApi, evalsApi, calibrationApi, createPair, getAgent } = await lib();
    const agent = await setup("rerank cut");
    const params = { id: String(agent.id) };
    const query = { query: "how do I reset the router", top_k: 3 };
    // Without a reranker there is nothing to cut on.
    const refused = await call(agentApi.PATCH, { params, method: "PATCH", json: { rerank_cut: 0.5 } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/choose a reranker first/);
    const set = await call(agentApi.PATCH, { params, method: "PATCH", json: { reranker: "http", rerank_candidates: 6, rerank_cut: 0.6 } });
    expect(set.status).toBe(200);
    expect(set.body.rerank_cut).toBe(0.6);
    expect(set.body.rerank_cut_version).toMatch(/^http /);
    // The stand-in scores the six i/6: only 4/6 and 5/6 are at or above 0.6.
    const cut = await call(search.POST, { params, json: query });
    expect(cut.body.results).toHaveLength(2);
    // Another reranker's scores are another scale: the cut does not apply to it.
    await call(agentApi.PATCH, { params, method: "PATCH", json: { reranker: "mmr" } });
    expect((await call(search.POST, { params, json: query })).body.results).toHaveLength(3);
    // Back on the endpoint it was set for, it applies again.
    await call(agentApi.PATCH, { params, method: "PATCH", json: { reranker: "http" } });
    expect((await call(search.POST, { params, json: query })).body.results).toHaveLength(2);
    // A run with the reranker calibrates the cut on its scores.
    createPair(agent.id, { query: "modem light blinking", expected_filename: "modem.md" });
    createPair(agent.id, { query: "what is the weather on mars", expected_filename: "" });
    const run = await call(evalsApi.POST, { params, json: { k: 3 } });
    const calibration = await call(calibrationApi.GET, { params: { ...params, runId: String(run.body.run_id) }, method: "GET" });
    expect(calibration.status).toBe(200);
    expect(calibration.body).toMatchObject({ score: "rerank", answerable: 1, unanswerable: 1 });
    expect(calibration.body.reranker_version).toBe(getAgent(agent.id).rerank_cut_version);
    expect(calibration.body.current.cut).toBe(0.6);
    expect(calibration.body.points.at(-1).cut).toBeNull();
    // Clearing it.
    const cleared = await call(agentApi.PATCH, { params, method: "PATCH", json: { rerank_cut: null } });
    expect(cleared.body).toMatchObject({ rerank_cut: null, rerank_cut_version: null });
  });

  it("PATCH refuses a reranker it cannot run and values out of range, changing nothing", async () => {
    const { call, agentApi, getAgent } = await lib();
    const agent = await setup("rerank patch");
    const params = { id: String(agent.id) };
    for (const [body, message] of [
      [{ reranker: "magic" }, /reranker must be one of: none, mmr, learned, http, chat/],
      [{ rerank_candidates: 0 }, /rerank_candidates must be an integer from 1 to 200/],
      [{ mmr_lambda: 1.5 }, /mmr_lambda must be a number from 0 to 1/],
      [{ reranker: "learned" }, /No learned reranker has won its cross-validation for this agent yet/],
    ] as const) {
      const res = await call(agentApi.PATCH, { params, method: "PATCH", json: body });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toMatch(message);
    }
    expect(getAgent(agent.id)).toMatchObject({ reranker: "none", rerank_candidates: 50, mmr_lambda: 0.7 });
  });
});
