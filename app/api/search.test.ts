import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { recentToolCalls } from "@/lib/db/tool-calls";

let agentId: string;
beforeAll(async () => {
  const agent = newAgent("search api");
  agentId = String(agent.id);
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
});

const post = (json: unknown, id = agentId) => call(search.POST, { json, params: { id } });

describe("POST /agents/{id}/documents/search", () => {
  it("answers the query and results ordered by distance, and logs the call", async () => {
    const res = await post({ query: "support SLA", top_k: 3 });
    expect(res.status).toBe(200);
    expect(res.body.query).toBe("support SLA");
    expect(res.body.results).toHaveLength(3);
    expect(Object.keys(res.body.results[0]).sort()).toEqual(["chunk_index", "chunk_text", "document_id", "filename", "score"]);
    expect(res.body.results[0].filename).toBe("sla.txt");
    const scores = res.body.results.map((r: { score: number }) => r.score);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);

    const [logged] = recentToolCalls(Number(agentId), 1);
    expect(logged).toMatchObject({ tool: "document_search", ok: 1, result_count: 3 });
    expect(JSON.parse(logged.input)).toEqual({ query: "support SLA", top_k: 3 });
  });

  // The original path (/agents/{id}/documents/search) is a rewrite in next.config.ts, checked over HTTP in e2e/smoke.spec.ts.
  it("defaults top_k to 3", async () => {
    expect((await post({ query: "refund" })).body.results).toHaveLength(3);
    const two = await post({ query: "refund", top_k: 2 });
    expect(two.body.results).toHaveLength(2);
    expect(two.body.results[0].filename).toBe("refunds.txt");
  });

  it("answers 422 for an empty query or a top_k outside 1..100", async () => {
    for (const body of [
      { query: "" },
      { query: "   " },
      {},
      { query: "x", top_k: 0 },
      { query: "x", top_k: 101 },
      { query: "x", top_k: 2.5 },
      { query: "x", top_k: "3" },
    ]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("invalid_request");
    }
    expect((await post({ query: "x", top_k: 100 })).status).toBe(200);
  });

  it("answers 404 for an unknown agent, and 403 without the document_search tool, logged as a refused call", async () => {
    expect((await post({ query: "x" }, "424242")).status).toBe(404);
    const noTool = newAgent("no tool", []);
    const res = await post({ query: "support SLA" }, String(noTool.id));
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/document_search/);
    // The agent asked and was refused: an operator sees it in the log.
    expect(recentToolCalls(noTool.id)).toEqual([
      expect.objectContaining({ ok: 0, source: "api", result_count: 0, input: JSON.stringify({ query: "support SLA", top_k: 3 }) }),
    ]);
  });

  it("answers empty results for an agent with no documents", async () => {
    const empty = newAgent("empty");
    expect(await post({ query: "anything", top_k: 5 }, String(empty.id))).toMatchObject({ status: 200, body: { results: [] } });
  });
});
