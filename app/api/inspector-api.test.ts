import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { listAgents } from "@/lib/db/agents";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { getUploadJob, startUploadJob } from "@/lib/ingest/uploads";
import * as uploads from "./agents/[id]/uploads/[jobId]/route";
import * as toolCalls from "./agents/[id]/tool-calls/route";
import * as preview from "./agents/[id]/documents/preview/route";
import * as inspect from "./agents/[id]/inspect/route";

let id: string;
const oneFile = (name: string, content: string) => {
  const form = new FormData();
  form.set("file", new Blob([content]), name);
  return form;
};
beforeAll(async () => {
  const agent = newAgent("inspector api");
  id = String(agent.id);
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
});

describe("inspector endpoints", () => {
  it("inspect answers the distance curve and the expected document's rank, 422 on an empty query", async () => {
    const ok = await call(inspect.POST, { json: { query: "refund" }, params: { id } });
    expect(ok.status).toBe(200);
    expect(ok.body.distances).toHaveLength(4);
    expect(ok.body.expected).toBeNull();
    expect((await call(inspect.POST, { json: { query: " " }, params: { id } })).status).toBe(422);
    expect((await call(inspect.POST, { json: { query: "x" }, params: { id: "777777" } })).status).toBe(404);
  });

  it("the inspector's list is the REST search's answer for the same query and k, in one request", async () => {
    const inspected = await call(inspect.POST, { json: { query: "refund to my card", top_k: 2 }, params: { id } });
    const searched = await call(search.POST, { json: { query: "refund to my card", top_k: 2 }, params: { id } });
    expect(inspected.body.results).toHaveLength(2);
    expect(inspected.body.results).toEqual(searched.body.results);
  });

  it("logs inspector searches apart from the agent's calls: distinct recent queries, last activity untouched", async () => {
    const agent = newAgent("sources");
    await ingest(agent.id, "sla.txt", ARTICLES.sla);
    const aid = String(agent.id);
    await call(search.POST, { json: { query: "response time", top_k: 2 }, params: { id: aid } });
    const before = listAgents().find((a) => a.id === agent.id)!.last_activity;
    for (const k of [1, 2, 3, 4]) await call(inspect.POST, { json: { query: "premium support", top_k: k }, params: { id: aid } });
    await call(inspect.POST, { json: { query: "response time", top_k: 5 }, params: { id: aid } });
    expect(listAgents().find((a) => a.id === agent.id)!.last_activity).toBe(before);

    const all = await call(toolCalls.GET, { method: "GET", params: { id: aid } });
    expect(all.body.tool_calls.map((c: { source: string }) => c.source)).toEqual([
      "inspector",
      "inspector",
      "inspector",
      "inspector",
      "inspector",
      "api",
    ]);
    const distinct = await call(toolCalls.GET, { method: "GET", params: { id: aid }, url: "?distinct=query" });
    expect(
      distinct.body.tool_calls.map((c: { input: string; source: string }) => [
        JSON.parse(c.input).query,
        JSON.parse(c.input).top_k,
        c.source,
      ]),
    ).toEqual([
      ["response time", 5, "inspector"],
      ["premium support", 4, "inspector"],
    ]);
  });

  it("the agent-facing gate refuses an agent without document_search and logs the refusal; the inspector still answers", async () => {
    const agent = newAgent("gated", []);
    await ingest(agent.id, "sla.txt", ARTICLES.sla);
    const aid = String(agent.id);
    const refused = await call(search.POST, { json: { query: "response time" }, params: { id: aid } });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    const [log] = (await call(toolCalls.GET, { method: "GET", params: { id: aid } })).body.tool_calls;
    expect(log).toMatchObject({ ok: 0, source: "api", error: expect.stringMatching(/document_search/) });
    const inspected = await call(inspect.POST, { json: { query: "response time" }, params: { id: aid } });
    expect(inspected.status).toBe(200);
    expect(inspected.body.results.map((r: { filename: string }) => r.filename)).toEqual(["sla.txt"]);
  });

  it("preview extracts text without storing anything, and rejects what an upload would reject", async () => {
    const ok = await call(preview.POST, { body: oneFile("a.html", "<p>Hello &amp; welcome</p>"), params: { id } });
    expect(ok).toMatchObject({ status: 200, body: { type: "html", text: "Hello & welcome", truncated: false } });
    const bad = await call(preview.POST, { body: oneFile("a.exe", "MZ"), params: { id } });
    expect(bad.status).toBe(422);
  });

  it("lists the agent's recent tool calls, newest first", async () => {
    await call(search.POST, { json: { query: "first" }, params: { id } });
    await call(search.POST, { json: { query: "second", top_k: 2 }, params: { id } });
    const res = await call(toolCalls.GET, { method: "GET", params: { id } });
    expect(res.body.tool_calls.slice(0, 2).map((c: { input: string }) => JSON.parse(c.input).query)).toEqual(["second", "first"]);
  });

  it("follows an upload job to the end and hides it from other agents", async () => {
    const job = startUploadJob(
      Number(id),
      [
        { filename: "new.txt", bytes: new TextEncoder().encode("A brand new article about parcels.") },
        { filename: "bad.exe", bytes: new Uint8Array([0x4d, 0x5a]) },
      ],
      { chunkSize: 800, chunkOverlap: 100 },
    );
    await expect.poll(() => getUploadJob(Number(id), job.id)?.finished, { timeout: 60_000 }).toBe(true);
    const res = await call(uploads.GET, { method: "GET", params: { id, jobId: job.id } });
    expect(res.body.files.map((f: { result: { outcome: string } }) => f.result.outcome)).toEqual(["indexed", "rejected"]);
    const other = newAgent("other");
    expect((await call(uploads.GET, { method: "GET", params: { id: String(other.id), jobId: job.id } })).status).toBe(404);
  });
});
