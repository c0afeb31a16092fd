import { describe, expect, it } from "vitest";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { documentSearchTool } from "@/lib/retrieval/retrieve";
import { requiredRole } from "@/lib/auth/request-rules";
import * as indexRecall from "./route";

describe("index recall API", () => {
  it("answers nulls before the first measurement, measures on POST, and keeps what it measured", async () => {
    const agent = newAgent("Recall API");
    const id = String(agent.id);
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.md`, text);

    const before = await call(indexRecall.GET, { method: "GET", params: { id } });
    expect(before).toMatchObject({
      status: 200,
      body: {
        agent_id: agent.id,
        k: 10,
        queries: 0,
        served_recall: null,
        index_recall: null,
        threshold: 0.95,
        below_threshold: false,
        measured_at: null,
      },
    });
    expect(before.body.reason).toEqual(expect.any(String));

    await documentSearchTool(agent.id, "how fast does support answer", 3);
    await documentSearchTool(agent.id, "refund to my card", 3);
    const measured = await call(indexRecall.POST, { params: { id } });
    expect(measured).toMatchObject({
      status: 200,
      body: {
        agent_id: agent.id,
        k: 10,
        queries: 2,
        served_recall: 1,
        served_exactly: true,
        nearest_missed: 0,
        below_threshold: false,
        reason: null,
      },
    });
    expect(measured.body.index_recall).toEqual(expect.any(Number));
    expect(measured.body.measured_at).toEqual(expect.any(String));

    const after = await call(indexRecall.GET, { method: "GET", params: { id } });
    expect(after).toEqual({ status: 200, body: measured.body });
  });

  it("lets viewers read and only editors measure", () => {
    expect(requiredRole("GET", "/api/agents/3/index-recall", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/index-recall", false)).toBe("editor");
  });

  it("answers 404 for an unknown or malformed agent id", async () => {
    for (const id of ["99999", "abc"]) {
      expect(await call(indexRecall.GET, { method: "GET", params: { id } })).toMatchObject({
        status: 404,
        body: { error: { code: "not_found" } },
      });
      expect(await call(indexRecall.POST, { params: { id } })).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    }
  });
});
