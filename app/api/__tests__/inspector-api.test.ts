import { beforeAll, describe, expect, it } from "vitest";
import * as inspect from "../agents/[id]/inspect/route";
import * as preview from "../agents/[id]/documents/preview/route";
import * as toolCalls from "../agents/[id]/tool-calls/route";
import * as uploads from "../agents/[id]/uploads/[jobId]/route";
import * as search from "../agents/[id]/documents/search/route";
import { call } from "@/lib/testing/http";
import { ARTICLES, ingest, newAgent } from "@/lib/testing/helpers";
import { getUploadJob, startUploadJob } from "@/lib/upload-jobs";

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
    const job = startUploadJob(Number(id), [
      { filename: "new.txt", bytes: new TextEncoder().encode("A brand new article about parcels.") },
      { filename: "bad.exe", bytes: new Uint8Array([0x4d, 0x5a]) },
    ], { chunkSize: 800, chunkOverlap: 100 });
    await expect.poll(() => getUploadJob(Number(id), job.id)?.finished, { timeout: 20_000 }).toBe(true);
    const res = await call(uploads.GET, { method: "GET", params: { id, jobId: job.id } });
    expect(res.body.files.map((f: { result: { outcome: string } }) => f.result.outcome)).toEqual(["indexed", "rejected"]);
    const other = newAgent("other");
    expect((await call(uploads.GET, { method: "GET", params: { id: String(other.id), jobId: job.id } })).status).toBe(404);
  });
});
