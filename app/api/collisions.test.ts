import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { ingest, newAgent } from "@/test/helpers";
import { BASE, COPIES, EXPECTED, pairName, precisionRecall, ROUTER } from "@/test/collision-set";
import { logToolCall } from "@/lib/db/tool-calls";
import { listDocuments } from "@/lib/db/documents";
import type { RetrievalTrace } from "@/lib/core/trace";
import * as collisions from "./agents/[id]/collisions/route";
import * as stage from "./agents/[id]/collisions/stage/route";
import * as draft from "./agents/[id]/drafts/[draftId]/route";
import * as publish from "./agents/[id]/drafts/[draftId]/publish/route";

interface Side {
  document_id: number;
  filename: string;
}
interface CollisionJson {
  kind: "duplicate" | "conflicting" | "competing";
  strength: number;
  a: Side;
  b: Side;
  evidence: Record<string, unknown> & {
    differences?: { a: { sentence: string }; b: { sentence: string }; tokens: { a: string; b: string; kind: string }[] }[];
    chunk_pairs?: { a: { document_id: number; chunk_index: number }; b: { document_id: number; chunk_index: number } }[];
    questions?: { question: string; rank_a: number; rank_b: number }[];
  };
}

const list = async (agent: number, query = "") => {
  const res = await call(collisions.GET, { method: "GET", params: { id: String(agent) }, url: query });
  return res as {
    status: number;
    body: { collisions: CollisionJson[]; total: number; scanned: Record<string, number>; error?: { code: string; message: string } };
  };
};
const names = (cs: CollisionJson[], kind: string) =>
  new Set(cs.filter((c) => c.kind === kind).map((c) => pairName(c.a.filename, c.b.filename)));

/** One logged call of the agent's own, as search would log it, with the documents it retrieved in this order. */
function logged(agentId: number, query: string, ranked: number[], source: "api" | "inspector" = "api") {
  const results = ranked.map((id, k) => ({ document_id: id, chunk_index: 0, filename: `doc ${id}`, score: 0.2 + k * 0.05 }));
  const trace: RetrievalTrace = { model: "local", mode: "vector", cut: null, top_k: 5, best: 0.2, nearest: results[0], results };
  logToolCall({
    agentId,
    tool: "document_search",
    input: { query, top_k: 5 },
    ok: true,
    latencyMs: 5,
    resultCount: results.length,
    source,
    retrieval: trace,
  });
}

let agent: number;
let other: number;
let ids: Record<string, number>;
beforeAll(async () => {
  agent = newAgent("collisions").id;
  other = newAgent("collisions elsewhere").id;
  const files = { ...BASE, ...Object.fromEntries(Object.entries(COPIES).map(([f, c]) => [f, c.text])), ...ROUTER };
  for (const [filename, text] of Object.entries(files)) {
    const r = await ingest(agent, filename, text, 400, 50);
    expect(r.status, `${filename}: ${r.message}`).toBe("ready");
  }
  // Another agent holds a copy of one of these articles, and a copy of that copy.
  for (const filename of ["refunds.md", "refunds-again.md"])
    expect((await ingest(other, filename, BASE["refunds.md"] + (filename === "refunds.md" ? "" : "\n"), 400, 50)).status).toBe("ready");
  ids = Object.fromEntries(listDocuments(agent).map((d) => [d.filename, d.id]));
  const elsewhere = listDocuments(other)[0].id;
  const id = (f: string) => ids[f];
  // Competing: reset and firmware within one rank in 3 of 4 questions; password and sla in both of theirs.
  logged(agent, "router lights blink after update", [id("router-reset.md"), id("router-firmware.md")]);
  logged(agent, "admin password after restart", [id("router-firmware.md"), id("router-reset.md")]);
  logged(agent, "router restarts by itself", [id("router-reset.md"), id("router-firmware.md")]);
  logged(agent, "router factory settings", [id("router-reset.md"), id("router-guest.md"), id("router-ports.md"), id("router-firmware.md")]);
  logged(agent, "reset link expired", [id("password.md"), id("sla.md")]);
  logged(agent, "sign in email not arriving", [id("sla.md"), id("password.md"), elsewhere]);
  // Not competing: guest always first and ports far behind; copies (reported as duplicates);
  // a pair shared by one question; an inspector's tries; another agent's document.
  const between = [
    ["refunds.md", "sla.md"],
    ["pricing.md", "shipping.md"],
    ["maintenance.md", "wifi-settings.md"],
  ];
  for (const [k, q] of ["guest wifi", "visitors wifi", "wifi for guests"].entries())
    logged(agent, q, [id("router-guest.md"), ...between[k].map(id), id("router-ports.md")]);
  for (const q of ["refund card", "refund time", "refund request"]) logged(agent, q, [id("refunds.md"), id("refunds-copy.md")]);
  logged(agent, "parcel lost", [id("shipping.md"), id("router-guest.md")]);
  for (const q of ["price of plans", "plan prices", "how much"]) logged(agent, q, [id("pricing.md"), id("refunds.md")], "inspector");
  for (const q of ["refund card", "refund time"]) logged(agent, q, [elsewhere, id("maintenance.md")]);
});

describe("GET /api/agents/{id}/collisions", () => {
  it("finds copies, conflicting copies and competing documents on the seeded set, and nothing between articles that only share a topic", async () => {
    const res = await list(agent, "?limit=500");
    expect(res.status).toBe(200);
    const figures = Object.fromEntries(
      (["duplicate", "conflicting", "competing"] as const).map((kind) => [
        kind,
        precisionRecall(names(res.body.collisions, kind), EXPECTED[kind]),
      ]),
    );
    console.log("collisions: precision and recall on the seeded set", JSON.stringify(figures));
    for (const kind of ["duplicate", "conflicting", "competing"] as const) {
      expect(figures[kind].precision, `${kind} precision`).toBe(1);
      expect(figures[kind].recall, `${kind} recall`).toBe(1);
    }
    // The topic's articles share words with each other, not text.
    const router = Object.keys(ROUTER);
    const topical = res.body.collisions.filter(
      (c) => c.kind !== "competing" && (router.includes(c.a.filename) || router.includes(c.b.filename)),
    );
    expect(topical).toEqual([]);
    // The strongest first.
    const strengths = res.body.collisions.map((c) => c.strength);
    expect(strengths).toEqual([...strengths].sort((x, y) => y - x));
    expect(res.body.total).toBe(res.body.collisions.length);
  });

  it("shows a verbatim copy's matching chunks and a conflict's differing sentences with the tokens that differ", async () => {
    const { body } = await list(agent);
    const copy = body.collisions.find((c) => c.b.filename === "refunds-copy.md")!;
    expect(copy).toMatchObject({ kind: "duplicate", a: { filename: "refunds.md" }, evidence: { similarity: 1 } });
    expect(copy.evidence.chunk_pairs!.length).toBeGreaterThan(1);
    for (const p of copy.evidence.chunk_pairs!) {
      expect([p.a.document_id, p.b.document_id]).toEqual([ids["refunds.md"], ids["refunds-copy.md"]]);
      expect(p.a.chunk_index).toBe(p.b.chunk_index);
    }
    const tokens = (f: string) =>
      body.collisions
        .find((c) => c.b.filename === f)!
        .evidence.differences!.flatMap((d) => d.tokens.map((t) => `${t.kind}: ${t.a} -> ${t.b}`));
    expect(tokens("pricing-2024.md")).toEqual(["price: $12 -> $15", "price: $29 -> $35"]);
    expect(tokens("shipping-eu.md")).toEqual(["duration: 2 -> 4", "duration: 3 -> 5", "duration: 5 -> 8"]);
    expect(tokens("maintenance-update.md")).toEqual(["date: March -> April", "date: 14 -> 11", "date: 1 -> 28"]);
    expect(tokens("wifi-settings-v2.md")).toEqual(["setting: Advanced -> Network", "setting: max_clients -> client_limit"]);
    const pricing = body.collisions.find((c) => c.b.filename === "pricing-2024.md")!;
    expect(pricing.evidence.differences![0]).toMatchObject({
      a: { sentence: "The Starter plan costs $12 per user per month and includes 10 GB of storage for each user." },
      b: { sentence: "The Starter plan costs $15 per user per month and includes 10 GB of storage for each user." },
    });
  });

  it("names competing documents' shared questions with each side's rank", async () => {
    const { body } = await list(agent, "?kind=competing");
    expect(body.collisions.every((c) => c.kind === "competing")).toBe(true);
    const reset = body.collisions.find((c) => c.a.filename === "router-reset.md" || c.b.filename === "router-reset.md")!;
    expect(reset.evidence).toMatchObject({ shared_questions: 4, close_questions: 3 });
    expect(reset.evidence.questions!.map((q) => q.question)).toContain("admin password after restart");
  });

  it("finds documents competing in the agent's real searches", async () => {
    const small = newAgent("collisions competing").id;
    await ingest(small, "router-reset.md", ROUTER["router-reset.md"], 400, 50);
    await ingest(small, "router-firmware.md", ROUTER["router-firmware.md"], 400, 50);
    for (const query of ["router admin password", "lights blink on the router", "router restarts"])
      expect((await call(search.POST, { json: { query, top_k: 2 }, params: { id: String(small) } })).status).toBe(200);
    const { body } = await list(small);
    expect(body.collisions).toHaveLength(1);
    expect(body.collisions[0]).toMatchObject({ kind: "competing", evidence: { shared_questions: 3 } });
    expect(body.scanned.questions).toBe(3);
  });

  it("answers the same twice, and never another agent's documents", async () => {
    const [first, second] = [await list(agent), await list(agent)];
    expect(second.body).toEqual(first.body);
    const mine = new Set(Object.values(ids));
    expect(first.body.collisions.flatMap((c) => [c.a.document_id, c.b.document_id]).every((d) => mine.has(d))).toBe(true);
    const theirs = await list(other);
    expect(theirs.body.collisions.map((c) => [c.kind, c.a.filename, c.b.filename])).toEqual([
      ["duplicate", "refunds.md", "refunds-again.md"],
    ]);
  });

  it("filters by kind, limits, and refuses an unknown kind or limit with 422", async () => {
    const dup = await list(agent, "?kind=duplicate&limit=2");
    expect(dup.body.collisions.map((c) => c.kind)).toEqual(["duplicate", "duplicate"]);
    expect(dup.body.total).toBe(3);
    const bad = await list(agent, "?kind=similar");
    expect(bad.status).toBe(422);
    expect(bad.body.error).toEqual({ code: "invalid_request", message: "kind: kind must be one of: duplicate, conflicting, competing." });
    expect((await list(agent, "?limit=501")).status).toBe(422);
  });
});

describe("POST /api/agents/{id}/collisions/stage", () => {
  it("stages the removal of one side in a new draft named after the collision; nothing served changes until it is published", async () => {
    const before = await list(agent, "?kind=duplicate");
    const res = await call(stage.POST, {
      json: { action: "remove", document_id: ids["sla-2023.md"], collides_with: ids["sla.md"] },
      params: { id: String(agent) },
    });
    expect(res.status).toBe(201);
    expect(res.body.draft).toMatchObject({
      name: 'Collision: keep "sla.md", remove "sla-2023.md"',
      removals: [{ filename: "sla-2023.md", base_id: ids["sla-2023.md"], base_changed: false }],
      documents: [],
    });
    expect(res.body.impact).toBe(`/api/agents/${agent}/drafts/${res.body.draft.id}/impact`);
    const shown = await call(draft.GET, { method: "GET", params: { id: String(agent), draftId: String(res.body.draft.id) } });
    expect(shown.body.removals.map((r: { filename: string }) => r.filename)).toEqual(["sla-2023.md"]);
    // Served as before: the document and the collision are still there.
    expect(listDocuments(agent).some((d) => d.filename === "sla-2023.md" && d.status === "ready")).toBe(true);
    expect((await list(agent, "?kind=duplicate")).body).toEqual(before.body);

    // A second removal in the same draft; another agent's document is not found, and no draft is left for it.
    const again = await call(stage.POST, {
      json: { action: "remove", document_id: ids["refunds-copy.md"], draft_id: res.body.draft.id },
      params: { id: String(agent) },
    });
    expect(again.status).toBe(200);
    expect(again.body.draft.removals.map((r: { filename: string }) => r.filename)).toEqual(["refunds-copy.md", "sla-2023.md"]);
    const foreign = await call(stage.POST, {
      json: { action: "remove", document_id: listDocuments(other)[0].id },
      params: { id: String(agent) },
    });
    expect(foreign.status).toBe(404);
    expect((await call(stage.POST, { json: { action: "merge", document_id: ids["sla.md"] }, params: { id: String(agent) } })).status).toBe(
      422,
    );

    const published = await call(publish.POST, { params: { id: String(agent), draftId: String(res.body.draft.id) } });
    expect(published.status).toBe(200);
    const after = names((await list(agent, "?kind=duplicate")).body.collisions, "duplicate");
    expect([...after]).toEqual([pairName("password.md", "password-old.md")]);
  });
  it("switches one side off in a draft: served, and retrieved, until the draft is published; then kept but never retrieved", async () => {
    const res = await call(stage.POST, {
      json: { action: "switch_off", document_id: ids["password-old.md"], collides_with: ids["password.md"] },
      params: { id: String(agent) },
    });
    expect(res.status).toBe(201);
    expect(res.body.draft).toMatchObject({ name: 'Collision: keep "password.md", switch off "password-old.md"', removals: [] });
    expect(res.body.draft.documents.map((d: { filename: string }) => d.filename)).toEqual(["password-old.md"]);
    const served = () => listDocuments(agent).find((d) => d.filename === "password-old.md" && d.draft_id === null)!;
    expect(served().enabled).toBe(1);
    const found = async () =>
      (await call(search.POST, { params: { id: String(agent) }, json: { query: "reset your password", top_k: 10 } })).body.results.map(
        (r: { filename: string }) => r.filename,
      );
    expect(await found()).toContain("password-old.md");
    expect(names((await list(agent, "?kind=duplicate")).body.collisions, "duplicate")).toContain(
      pairName("password.md", "password-old.md"),
    );

    const published = await call(publish.POST, { params: { id: String(agent), draftId: String(res.body.draft.id) } });
    expect(published.status).toBe(200);
    expect(served()).toMatchObject({ status: "ready", enabled: 0 });
    expect(await found()).not.toContain("password-old.md");
    expect(names((await list(agent, "?kind=duplicate")).body.collisions, "duplicate")).not.toContain(
      pairName("password.md", "password-old.md"),
    );
  });
});
