import { describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call, LOCAL_PEER } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { requiredRole } from "@/lib/auth/request-rules";
import { listPairs } from "@/lib/db/pairs";
import * as toolCalls from "../tool-calls/route";
import * as gaps from "../gaps/route";
import * as replay from "./replay/route";
import * as triage from "./[groupId]/route";
import * as questions from "./route";

async function agentAsked(...queries: string[]) {
  const agent = newAgent("Questions API");
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.md`, text);
  for (const query of queries)
    expect((await call(search.POST, { json: { query, top_k: 3 }, params: { id: String(agent.id) } })).status).toBe(200);
  return { agent, id: String(agent.id) };
}

describe("questions API", () => {
  it("lists the questions the agent asked through the search API, grouped, and triages them", async () => {
    const { agent, id } = await agentAsked("Forgot my password?", "forgot my password", "refund to my card");
    const listed = await call(questions.GET, { method: "GET", params: { id } });
    expect(listed.status).toBe(200);
    expect(listed.body.questions.map((q: { text: string; asked: number }) => [q.text, q.asked])).toEqual([
      ["Forgot my password?", 2],
      ["refund to my card", 1],
    ]);
    const [forgot, refund] = listed.body.questions;
    const labeled = await call(triage.POST, {
      json: { action: "label", expected: "password.md" },
      params: { id, groupId: String(forgot.id) },
    });
    expect(labeled).toMatchObject({
      status: 200,
      body: {
        id: forgot.id,
        status: "labeled",
        expected: "password.md",
        pair: { query: "Forgot my password?", source: "log", answerable: true },
      },
    });
    expect((await call(triage.POST, { json: { action: "gap" }, params: { id, groupId: String(refund.id) } })).body.status).toBe("gap");

    const filtered = await call(questions.GET, { method: "GET", params: { id }, url: "?status=gap" });
    expect(filtered.body.questions.map((q: { id: number }) => q.id)).toEqual([refund.id]);
    expect(listPairs(agent.id).map((p) => p.query)).toEqual(["Forgot my password?"]);

    // The log shows what each call returned, as an object.
    const [latest] = (await call(toolCalls.GET, { method: "GET", params: { id }, url: "?limit=1" })).body.tool_calls;
    expect(latest).toMatchObject({ question_key: "refund to my card", refused: 0, retrieval: { top_k: 3, mode: "vector", cut: null } });
    expect(latest.retrieval.results[0]).toMatchObject({ filename: "refunds.md", chunk_index: 0 });
  });

  it("answers 422 for a bad action, status, date or document and 404 for another agent's question, changing nothing", async () => {
    const { agent, id } = await agentAsked("forgot my password");
    const other = await agentAsked("refund to my card");
    const [q] = (await call(questions.GET, { method: "GET", params: { id } })).body.questions;
    expect(await call(triage.POST, { json: { action: "delete" }, params: { id, groupId: String(q.id) } })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });
    expect(
      await call(triage.POST, { json: { action: "label", expected: "nowhere.md" }, params: { id, groupId: String(q.id) } }),
    ).toMatchObject({
      status: 422,
      body: { error: { code: "unknown_document" } },
    });
    expect(await call(triage.POST, { json: { action: "gap" }, params: { id: other.id, groupId: String(q.id) } })).toMatchObject({
      status: 404,
    });
    expect(await call(questions.GET, { method: "GET", params: { id }, url: "?status=done" })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });
    expect(await call(questions.GET, { method: "GET", params: { id }, url: "?since=yesterday" })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });
    expect(listPairs(agent.id)).toEqual([]);
    expect((await call(questions.GET, { method: "GET", params: { id } })).body.questions[0].status).toBe("open");
  });

  it("exports gaps as CSV and replays questions", async () => {
    const { agent, id } = await agentAsked("do you sell gift cards");
    const [q] = (await call(questions.GET, { method: "GET", params: { id } })).body.questions;
    await call(triage.POST, { json: { action: "gap" }, params: { id, groupId: String(q.id) } });
    const res = await gaps.GET(new Request("http://localhost/test?format=csv", { headers: LOCAL_PEER }), {
      params: Promise.resolve({ id }),
    });
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/-gaps\.csv"$/);
    expect((await res.text()).split("\r\n")[1]).toMatch(/^do you sell gift cards,1,.*,marked,/);
    const json = await call(gaps.GET, { method: "GET", params: { id } });
    expect(json.body.gaps.map((g: { text: string }) => g.text)).toEqual(["do you sell gift cards"]);
    expect(await call(gaps.GET, { method: "GET", params: { id }, url: "?beyond=-1" })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });

    const replayed = await call(replay.POST, { json: { limit: 5 }, params: { id } });
    expect(replayed).toMatchObject({ status: 200, body: { summary: { replayed: 1, unchanged: 1 } } });
    expect(await call(replay.POST, { json: { limit: 5000 }, params: { id } })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });
    expect(await call(replay.POST, { json: { groups: [q.id], since: "2026-01-01" }, params: { id } })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });
    expect(agent.id).toBeGreaterThan(0);
  });

  it("lets viewers read and replay, and only editors triage", () => {
    expect(requiredRole("GET", "/api/agents/3/questions", false)).toBe("viewer");
    expect(requiredRole("GET", "/api/agents/3/gaps", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/questions/replay", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/3/questions/12", false)).toBe("editor");
  });
});
