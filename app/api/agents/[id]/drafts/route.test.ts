import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call, filesForm } from "@/test/http";
import { ingest, newAgent, vectorsOf } from "@/test/helpers";
import { getAgent } from "@/lib/db/agents";
import { listDocuments } from "@/lib/db/documents";
import { runCleanup } from "@/lib/ingest/cleanup";
import { auditIndex } from "@/lib/index-upkeep/audit";
import { getUploadJob, waitForUploadJob } from "@/lib/ingest/uploads";
import * as agentRoute from "../route";
import * as chunk from "../chunks/[chunkId]/route";
import * as doc from "../documents/[docId]/route";
import * as documents from "../documents/route";
import * as uploads from "../uploads/route";
import * as drafts from "./route";
import * as draft from "./[draftId]/route";
import * as publish from "./[draftId]/publish/route";

const ROUTER = [
  "Router reset. Hold the reset button on the back of the router for ten seconds until the lights blink amber.",
  "Guest network. Turn on the guest network in the admin page under Wireless, then share the printed guest password.",
].join("\n\n");
const BILLING = "Billing. Invoices are issued on the first day of each billing period and can be downloaded as PDF.";

interface ChunkJson {
  id: number;
  text: string;
  edited: boolean;
}

async function setUp(name: string) {
  const agent = String(newAgent(name).id);
  const router = (await ingest(Number(agent), "router.md", ROUTER, 120, 0)).document_id!;
  const billing = (await ingest(Number(agent), "billing.md", BILLING, 120, 0)).document_id!;
  const chunks: ChunkJson[] = (await call(doc.GET, { method: "GET", params: { id: agent, docId: String(router) } })).body.chunks;
  const created = await call(drafts.POST, { json: { name: "fix the reset article" }, params: { id: agent } });
  expect(created.status).toBe(201);
  return { agent, router, billing, chunks, draftId: created.body.id as number };
}
const withDraft = (draftId: number) => `?draft=${draftId}`;
const texts = async (agent: string, query: string) =>
  (
    (await call(search.POST, { json: { query, top_k: 10 }, params: { id: agent } })).body.results as {
      chunk_text: string;
      filename: string;
    }[]
  ).map((r) => `${r.filename}: ${r.chunk_text}`);
const EDITED = "Router reset. Press the reset button with a pin for fifteen seconds.";

describe("drafts", () => {
  let agent: string;
  let router: number;
  let chunks: ChunkJson[];
  let draftId: number;
  beforeAll(async () => {
    ({ agent, router, chunks, draftId } = await setUp("drafts"));
  });

  it("stage chunk changes, a removal and the mode without serving any of them", async () => {
    const before = await texts(agent, "reset button pin");
    const edit = await call(chunk.PATCH, {
      method: "PATCH",
      json: { text: EDITED },
      params: { id: agent, chunkId: String(chunks[0].id) },
      url: withDraft(draftId),
    });
    expect(edit.status).toBe(200);
    expect(edit.body.chunk).toMatchObject({ id: chunks[0].id, text: EDITED, edited: true });
    const billing = listDocuments(Number(agent)).find((d) => d.filename === "billing.md")!;
    expect(
      (await call(doc.DELETE, { method: "DELETE", params: { id: agent, docId: String(billing.id) }, url: withDraft(draftId) })).status,
    ).toBe(200);
    const mode = await call(agentRoute.PATCH, {
      method: "PATCH",
      json: { retrieval_mode: "hybrid" },
      params: { id: agent },
      url: withDraft(draftId),
    });
    expect(mode.status).toBe(200);

    // What the agent serves is as it was: the search, its documents, its mode.
    expect(await texts(agent, "reset button pin")).toEqual(before);
    expect(
      listDocuments(Number(agent))
        .map((d) => d.filename)
        .sort(),
    ).toEqual(["billing.md", "router.md"]);
    expect(getAgent(Number(agent)).retrieval_mode).toBe("vector");
    expect((await call(doc.GET, { method: "GET", params: { id: agent, docId: String(router) } })).body.chunks[0].edited).toBe(false);
    // The draft's view of the document has the edit; the draft lists what it stages.
    const inDraft = await call(doc.GET, { method: "GET", params: { id: agent, docId: String(router) }, url: withDraft(draftId) });
    expect(inDraft.body).toMatchObject({ status: "draft", draft_id: draftId, base_id: router });
    expect(inDraft.body.chunks[0]).toMatchObject({ id: chunks[0].id, text: EDITED, edited: true });
    const shown = await call(draft.GET, { method: "GET", params: { id: agent, draftId: String(draftId) } });
    expect(shown.body).toMatchObject({
      name: "fix the reset article",
      settings: { retrieval_mode: "hybrid" },
      documents: [{ filename: "router.md", status: "draft", base_id: router, base_changed: false }],
      removals: [{ filename: "billing.md", base_id: billing.id, base_changed: false }],
      base_changed: false,
    });
    // The audit counts the staged version's vectors as the draft's, not as orphans to remove, and finds them whole.
    const audit = await auditIndex();
    expect(audit.orphan_vectors.filter((o) => o.agent_id === Number(agent))).toEqual([]);
    expect(audit.missing_vectors.filter((d) => d.agent_id === Number(agent))).toEqual([]);
    // A second change in the draft builds on the draft's version, not on the served one.
    const second = await call(chunk.PATCH, {
      method: "PATCH",
      json: { questions: ["wifi for visitors"] },
      params: { id: agent, chunkId: String(chunks[1].id) },
      url: withDraft(draftId),
    });
    expect(second.body.chunks.map((c: ChunkJson) => c.text)).toEqual([EDITED, chunks[1].text]);
  });

  it("publishes everything at once: the edit served, the removal done, the mode set, the draft gone", async () => {
    const res = await call(publish.POST, { params: { id: agent, draftId: String(draftId) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      published: [{ filename: "router.md" }],
      removed: expect.arrayContaining(["router.md", "billing.md"]),
    });
    const served = listDocuments(Number(agent));
    expect(served.map((d) => [d.filename, d.status])).toEqual([["router.md", "ready"]]);
    expect(served[0].id).toBe(res.body.published[0].document_id);
    expect(getAgent(Number(agent)).retrieval_mode).toBe("hybrid");
    expect((await texts(agent, "reset button pin"))[0]).toBe(`router.md: ${EDITED}`);
    expect((await texts(agent, "invoices billing period")).some((t) => t.startsWith("billing.md"))).toBe(false);
    expect((await call(draft.GET, { method: "GET", params: { id: agent, draftId: String(draftId) } })).status).toBe(404);
    expect(await vectorsOf(Number(agent), served[0].id)).toHaveLength(2);
  });
});

describe("uploads in a draft", () => {
  it("stage a new file and a replacement without serving them, and publish serves both", async () => {
    const { agent, router, draftId } = await setUp("draft uploads");
    const form = filesForm([
      ["printer.md", "Printer setup. Connect the printer to the guest network and print a test page."],
      ["router.md", "Router reset. The reset now happens from the mobile app under Settings."],
    ]);
    const res = await call(documents.POST, { body: form, params: { id: agent }, url: withDraft(draftId) });
    expect(res.status).toBe(201);
    expect(res.body.documents.map((d: { outcome: string }) => d.outcome)).toEqual(["staged", "staged"]);
    expect(
      listDocuments(Number(agent))
        .map((d) => d.filename)
        .sort(),
    ).toEqual(["billing.md", "router.md"]);
    expect((await texts(agent, "printer test page")).some((t) => t.startsWith("printer.md"))).toBe(false);
    const shown = await call(draft.GET, { method: "GET", params: { id: agent, draftId: String(draftId) } });
    expect(shown.body.documents.map((d: { filename: string; base_id: number | null }) => [d.filename, d.base_id])).toEqual([
      ["printer.md", null],
      ["router.md", router],
    ]);
    expect((await call(publish.POST, { params: { id: agent, draftId: String(draftId) } })).status).toBe(200);
    expect(
      listDocuments(Number(agent))
        .map((d) => d.filename)
        .sort(),
    ).toEqual(["billing.md", "printer.md", "router.md"]);
    expect((await texts(agent, "printer test page"))[0]).toMatch(/^printer\.md: /);
    expect((await texts(agent, "reset mobile app settings"))[0]).toBe(
      "router.md: Router reset. The reset now happens from the mobile app under Settings.",
    );
  });
});

describe("a background upload with ?draft=", () => {
  it("stages the job's files in the draft, served once it is published", async () => {
    const { agent, draftId } = await setUp("draft upload job");
    const form = filesForm([["printer.md", "Printer setup. Connect the printer to the guest network and print a test page."]]);
    const started = await call(uploads.POST, { body: form, params: { id: agent }, url: withDraft(draftId) });
    expect(started.status).toBe(202);
    await waitForUploadJob(Number(agent), started.body.id, 60_000);
    const job = getUploadJob(Number(agent), started.body.id)!;
    expect(job.files[0].result).toMatchObject({ outcome: "staged", status: "ready" });
    expect(listDocuments(Number(agent)).map((d) => d.filename)).not.toContain("printer.md");
    expect((await texts(agent, "printer test page")).some((t) => t.startsWith("printer.md"))).toBe(false);
    const shown = await call(draft.GET, { method: "GET", params: { id: agent, draftId: String(draftId) } });
    expect(shown.body.documents.map((d: { filename: string }) => d.filename)).toEqual(["printer.md"]);
    expect((await call(publish.POST, { params: { id: agent, draftId: String(draftId) } })).status).toBe(200);
    expect((await texts(agent, "printer test page"))[0]).toMatch(/^printer\.md: /);
    // A draft of another agent: 404, nothing started.
    const other = String(newAgent("draft upload other").id);
    const theirs = (await call(drafts.POST, { json: { name: "theirs" }, params: { id: other } })).body.id as number;
    const refused = await call(uploads.POST, { body: filesForm([["x.md", "Some text."]]), params: { id: agent }, url: withDraft(theirs) });
    expect(refused.status).toBe(404);
  });
});

describe("a discarded draft", () => {
  it("leaves what is served as it was and nothing of itself behind, vectors included", async () => {
    const { agent, router, chunks, draftId } = await setUp("discarded draft");
    const edit = await call(chunk.PATCH, {
      method: "PATCH",
      json: { text: EDITED },
      params: { id: agent, chunkId: String(chunks[0].id) },
      url: withDraft(draftId),
    });
    const staged = edit.body.document_id as number;
    expect(await vectorsOf(Number(agent), staged)).toHaveLength(2);
    expect((await call(draft.DELETE, { method: "DELETE", params: { id: agent, draftId: String(draftId) } })).status).toBe(204);
    await runCleanup({ all: true });
    expect(await vectorsOf(Number(agent), staged)).toEqual([]);
    expect((await auditIndex()).orphan_vectors.filter((o) => o.agent_id === Number(agent))).toEqual([]);
    const served = listDocuments(Number(agent)).map((d) => d.id);
    expect(served).toHaveLength(2);
    expect(served).toContain(router);
    expect((await call(doc.GET, { method: "GET", params: { id: agent, docId: String(staged) } })).status).toBe(404);
    expect((await texts(agent, "reset button pin"))[0]).toBe(`router.md: ${chunks[0].text}`);
  });
});

describe("publishing a draft whose base changed", () => {
  it("is refused with 409 naming the documents, and applies nothing", async () => {
    const { agent, router, billing, chunks, draftId } = await setUp("base changed");
    await call(chunk.PATCH, {
      method: "PATCH",
      json: { text: EDITED },
      params: { id: agent, chunkId: String(chunks[0].id) },
      url: withDraft(draftId),
    });
    await call(doc.DELETE, { method: "DELETE", params: { id: agent, docId: String(billing) }, url: withDraft(draftId) });
    // The served router.md changes outside the draft, and billing.md is deleted.
    const direct = await call(chunk.PATCH, {
      method: "PATCH",
      json: { enabled: false },
      params: { id: agent, chunkId: String(chunks[1].id) },
    });
    expect(direct.status).toBe(200);
    expect((await call(doc.DELETE, { method: "DELETE", params: { id: agent, docId: String(billing) } })).status).toBe(204);
    const shown = await call(draft.GET, { method: "GET", params: { id: agent, draftId: String(draftId) } });
    expect(shown.body.base_changed).toBe(true);
    const res = await call(publish.POST, { params: { id: agent, draftId: String(draftId) } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/"billing\.md", "router\.md"|"router\.md", "billing\.md"/);
    expect(listDocuments(Number(agent)).map((d) => d.id)).toEqual([direct.body.document_id]);
    expect(router).not.toBe(direct.body.document_id);
    expect((await texts(agent, "reset button pin"))[0]).toBe(`router.md: ${chunks[0].text}`);
  });
});

describe("bad draft input", () => {
  it("answers 404 for an unknown draft or another agent's, 422 for an empty name or a setting a draft does not stage, 409 for a staged version changed outside its draft", async () => {
    const { agent, chunks, draftId } = await setUp("bad drafts");
    const other = String(newAgent("other drafts").id);
    expect((await call(draft.GET, { method: "GET", params: { id: other, draftId: String(draftId) } })).status).toBe(404);
    expect(
      (
        await call(chunk.PATCH, {
          method: "PATCH",
          json: { enabled: false },
          params: { id: agent, chunkId: String(chunks[0].id) },
          url: "?draft=999999",
        })
      ).status,
    ).toBe(404);
    const empty = await call(drafts.POST, { json: { name: "  " }, params: { id: agent } });
    expect(empty.status).toBe(422);
    expect(empty.body.error.message).toMatch(/^name: /);
    const named = await call(agentRoute.PATCH, {
      method: "PATCH",
      json: { name: "renamed" },
      params: { id: agent },
      url: withDraft(draftId),
    });
    expect(named.status).toBe(422);
    expect(named.body.error.message).toContain("name");
    const staged = await call(chunk.PATCH, {
      method: "PATCH",
      json: { text: EDITED },
      params: { id: agent, chunkId: String(chunks[0].id) },
      url: withDraft(draftId),
    });
    const outside = await call(doc.PATCH, {
      method: "PATCH",
      json: { chunk_size: 200, chunk_overlap: 0 },
      params: { id: agent, docId: String(staged.body.document_id) },
    });
    expect(outside.status).toBe(409);
    expect(outside.body.error.message).toContain(`?draft=${draftId}`);
  });
});
