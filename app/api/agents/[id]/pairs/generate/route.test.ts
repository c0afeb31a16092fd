import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { call, LOCAL_PEER } from "@/test/http";
import { ingest, newAgent } from "@/test/helpers";
import { offlineQuestions } from "@/lib/evaluation/generate/offline";
import { addPair } from "@/lib/evaluation/labeled-pairs";
import { startEvaluation } from "@/lib/evaluation/run";
import * as evals from "../../evals/route";
import * as pair from "../[pairId]/route";
import * as pairs from "../route";
import * as generate from "./route";

// Without OPENAI_CHAT_MODEL the questions come from the documents' own structure (the offline
// generator); chat.test.ts beside this file covers the chat model.
const demo = (name: string) => fs.readFileSync(path.join(process.cwd(), "demo", name), "utf8");
const FILES = ["refund-policy.md", "support-sla.md", "data-export.md"];

interface PairBody {
  id: number;
  query: string;
  expected: string;
  source: string;
  status: string;
}
const list = async (agent: string): Promise<PairBody[]> => (await call(pairs.GET, { method: "GET", params: { id: agent } })).body.pairs;
const post = (agent: string, json: unknown) => call(generate.POST, { params: { id: agent }, json });

async function agentWithDemo(name: string) {
  const agent = newAgent(name);
  const ids: Record<string, number> = {};
  for (const f of FILES) ids[f] = (await ingest(agent.id, f, demo(f))).document_id!;
  return { id: String(agent.id), agentId: agent.id, ids };
}

describe("POST /api/agents/{id}/pairs/generate without a chat model", () => {
  let a: Awaited<ReturnType<typeof agentWithDemo>>;
  beforeAll(async () => {
    a = await agentWithDemo("generate offline");
  });

  it("proposes the offline generator's questions for every ready document, labeled with it, as generated proposals", async () => {
    const res = await post(a.id, { documents: "all", per_document: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      generator: "offline",
      proposed: 9,
      skipped: 0,
      per_document: FILES.map((f) => ({ document_id: a.ids[f], filename: f, proposed: 3 })),
    });
    const stored = await list(a.id);
    expect(stored.map((p) => ({ query: p.query, expected: p.expected, source: p.source, status: p.status }))).toEqual(
      FILES.flatMap((f) =>
        offlineQuestions(demo(f), 3).map((q) => ({ query: q.query, expected: f, source: "generated", status: "proposed" })),
      ),
    );
    expect(stored.map((p) => p.query)).toContain("How do I request a refund?");
    // Proposals stay out of the exported file: it holds the pairs that count.
    const csv = await pairs.GET(new Request("http://localhost/test?format=csv", { headers: LOCAL_PEER }), {
      params: Promise.resolve({ id: a.id }),
    });
    expect(await csv.text()).toBe("query,expected,note,answerable\r\n");
  });

  it("skips what exists already, and generates for the documents chosen only", async () => {
    const again = await post(a.id, { documents: [a.ids["refund-policy.md"]], per_document: 4 });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ proposed: 1, skipped: 3, per_document: [{ filename: "refund-policy.md", proposed: 1 }] });
    const none = await post(a.id, { documents: [a.ids["refund-policy.md"]], per_document: 4 });
    expect(none).toMatchObject({ status: 200, body: { proposed: 0, skipped: 4 } });
    expect((await list(a.id)).length).toBe(10);
  });

  it("does not propose again a question rejected, or reworded before it was accepted", async () => {
    const b = await agentWithDemo("generate dismissed");
    const first = await post(b.id, { documents: [b.ids["support-sla.md"]], per_document: 3 });
    expect(first.body.proposed).toBe(3);
    const [rejected, reworded, kept] = await list(b.id);
    expect((await call(pair.DELETE, { method: "DELETE", params: { id: b.id, pairId: String(rejected.id) } })).status).toBe(204);
    expect(
      (
        await call(pair.PATCH, {
          method: "PATCH",
          params: { id: b.id, pairId: String(reworded.id) },
          json: { query: "How fast do you answer?", status: "accepted" },
        })
      ).status,
    ).toBe(200);
    const again = await post(b.id, { documents: [b.ids["support-sla.md"]], per_document: 3 });
    expect(again.body).toMatchObject({ proposed: 0, skipped: 3 });
    expect((await list(b.id)).map((p) => [p.query, p.status])).toEqual([
      ["How fast do you answer?", "accepted"],
      [kept.query, "proposed"],
    ]);
  });

  it("answers 422 for bad input and changes nothing", async () => {
    const other = newAgent("generate other");
    const foreign = (await ingest(other.id, "refund-policy.md", demo("refund-policy.md"))).document_id!;
    const before = await list(a.id);
    const cases: [unknown, string, RegExp][] = [
      [{ documents: [foreign], per_document: 2 }, "unknown_document", new RegExp(`No indexed document with id ${foreign}`)],
      [{ documents: [a.ids["support-sla.md"], 999999], per_document: 2 }, "unknown_document", /999999/],
      [{ documents: [], per_document: 2 }, "invalid_request", /Choose at least one document/],
      [{ documents: "some" }, "invalid_request", /documents must be "all" or a list of document ids/],
      [{ documents: "all", per_document: 0 }, "invalid_request", /per_document must be an integer from 1 to 20/],
      [{ documents: "all", per_document: 21 }, "invalid_request", /per_document must be an integer from 1 to 20/],
      [
        { documents: Array.from({ length: 201 }, (_, i) => i + 1) },
        "invalid_request",
        /201 documents were chosen; questions are generated for at most 200/,
      ],
    ];
    for (const [json, code, message] of cases) {
      const res = await post(a.id, json);
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.message).toMatch(message);
    }
    const bad = await call(generate.POST, { params: { id: a.id }, body: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect((await post("424242", { documents: "all" })).status).toBe(404);
    expect(await list(a.id)).toEqual(before);
  });
});

describe("reviewing proposals, and runs by source", () => {
  it("counts a proposal in runs only once accepted; a run of source generated scores the accepted generated pairs only", async () => {
    const a = await agentWithDemo("generate review");
    addPair(a.agentId, { query: "how long do I have to ask for a refund", expected: "refund-policy.md", answerable: true, note: null });
    await post(a.id, { documents: [a.ids["support-sla.md"], a.ids["data-export.md"]], per_document: 2 });
    const proposals = (await list(a.id)).filter((p) => p.status === "proposed");
    expect(proposals).toHaveLength(4);

    // Proposals do not count: the run scores the one manual pair, and there is nothing generated to run.
    expect((await startEvaluation(a.agentId, 3).done).n_pairs).toBe(1);
    expect(() => startEvaluation(a.agentId, 3, undefined, "generated")).toThrow(/no accepted labeled pairs from the source "generated"/);

    // Accept one as is, accept one with its query and document edited, reject one; one stays proposed.
    const [asIs, edited, rejected, left] = proposals;
    const accepted = await call(pair.PATCH, { params: { id: a.id, pairId: String(asIs.id) }, json: { status: "accepted" } });
    expect(accepted).toMatchObject({ status: 200, body: { id: asIs.id, query: asIs.query, status: "accepted", source: "generated" } });
    const edit = await call(pair.PATCH, {
      params: { id: a.id, pairId: String(edited.id) },
      json: { status: "accepted", query: "Where can I see my SLA target?", expected: "support-sla.md" },
    });
    expect(edit).toMatchObject({
      status: 200,
      body: { query: "Where can I see my SLA target?", expected: "support-sla.md", status: "accepted" },
    });
    expect((await call(pair.DELETE, { method: "DELETE", params: { id: a.id, pairId: String(rejected.id) } })).status).toBe(204);
    const badStatus = await call(pair.PATCH, { params: { id: a.id, pairId: String(left.id) }, json: { status: "maybe" } });
    expect(badStatus).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request", message: expect.stringMatching(/status must be one of: accepted, proposed/) } },
    });

    const generated = await call(evals.POST, { params: { id: a.id }, json: { k: 5, source: "generated" } });
    expect(generated.status).toBe(201);
    expect(generated.body.settings.pair_source).toBe("generated");
    expect(generated.body.pairs.map((p: { query: string }) => p.query).sort()).toEqual(
      [asIs.query, "Where can I see my SLA target?"].sort(),
    );
    const manual = await call(evals.POST, { params: { id: a.id }, json: { k: 5, source: "manual" } });
    expect(manual.body.pairs.map((p: { query: string }) => p.query)).toEqual(["how long do I have to ask for a refund"]);
    const all = await call(evals.POST, { params: { id: a.id }, json: { k: 5 } });
    expect(all.body).toMatchObject({ n_pairs: 3, settings: { pair_source: null } });
    const listed = await call(evals.GET, { method: "GET", params: { id: a.id }, url: "?source=generated" });
    expect(listed.body.runs.map((r: { run_id: number }) => r.run_id)).toEqual([generated.body.run_id]);
  });
});
