import { describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { ingest, newAgent } from "@/test/helpers";
import { HELP, LOGGED, PAIRS } from "@/test/help-centre";
import { db } from "@/lib/db/client";
import { listDocuments } from "@/lib/db/documents";
import { createPair } from "@/lib/db/pairs";
import { runResults } from "@/lib/db/eval-runs";
import { evaluate } from "@/lib/evaluation/run";
import * as agentRoute from "../../../route";
import * as chunk from "../../../chunks/[chunkId]/route";
import * as doc from "../../../documents/[docId]/route";
import * as drafts from "../../route";
import * as publish from "../publish/route";
import * as inspect from "../../../inspect/route";
import * as replay from "../../../questions/replay/route";
import * as impact from "./route";

async function setUp(name: string) {
  const agentId = newAgent(name).id;
  for (const [filename, text] of Object.entries(HELP)) await ingest(agentId, filename, text, 140, 0);
  for (const [query, expected] of PAIRS) createPair(agentId, { query, expected_filename: expected });
  const agent = String(agentId);
  // Questions the agent was asked (logged with what they returned).
  for (const query of LOGGED) expect((await call(search.POST, { json: { query, top_k: 3 }, params: { id: agent } })).status).toBe(200);
  return { agentId, agent };
}

const idOf = (agentId: number, filename: string) => listDocuments(agentId).find((d) => d.filename === filename && d.status === "ready")!.id;
const chunksOf = async (agent: string, docId: number) =>
  (await call(doc.GET, { method: "GET", params: { id: agent, docId: String(docId) } })).body.chunks as { id: number; text: string }[];
const first = async (agent: string, query: string, topK = 3) => {
  const r = (await call(search.POST, { json: { query, top_k: topK }, params: { id: agent } })).body.results as {
    filename: string;
    chunk_text: string;
    score: number;
  }[];
  return r[0] ? { filename: r[0].filename, chunk_text: r[0].chunk_text, score: r[0].score } : null;
};
const impactOf = async (agent: string, draftId: number, query = "k=3") =>
  call(impact.GET, { method: "GET", params: { id: agent, draftId: String(draftId) }, url: `?${query}` });
const ranksOf = (runId: number) => new Map(runResults(runId).map((r) => [r.pair_id!, r.beyond_cut ? null : r.rank]));

/**
 * The draft's predicted figures against what an evaluation run measures once it is published:
 * equal, to the last bit, pair by pair; and the questions whose first result it said would change.
 */
async function expectPredicted(agentId: number, agent: string, draftId: number) {
  const beforeRun = await evaluate(agentId, 3);
  const res = await impactOf(agent, draftId);
  expect(res.status).toBe(200);
  const body = res.body;
  expect(body.pairs.count).toBe(PAIRS.length);
  expect(body.pairs.recall_at_k.before).toBe(beforeRun.recall_at_k!["3"]);
  expect(body.pairs.mrr.before).toBe(beforeRun.mrr);
  const logged = new Map<string, { filename: string; chunk_text: string; score: number } | null>();
  for (const q of LOGGED) logged.set(q, await first(agent, q));

  expect((await call(publish.POST, { params: { id: agent, draftId: String(draftId) } })).status).toBe(200);
  const afterRun = await evaluate(agentId, 3);
  expect(body.pairs.recall_at_k.after).toBe(afterRun.recall_at_k!["3"]);
  expect(body.pairs.mrr.after).toBe(afterRun.mrr);
  // Each pair's rank after: the predicted change, or as before.
  const [before, after] = [ranksOf(beforeRun.id), ranksOf(afterRun.id)];
  const changed = new Map<number, { before: number | null; after: number | null }>(
    body.pairs.changed.map((c: { pair_id: number; rank: { before: number | null; after: number | null } }) => [c.pair_id, c.rank]),
  );
  for (const [pairId, rank] of after) {
    const predicted = changed.get(pairId);
    expect({ pairId, rank: predicted?.before ?? before.get(pairId) }).toEqual({ pairId, rank: before.get(pairId) });
    expect({ pairId, rank: predicted ? predicted.after : before.get(pairId) }).toEqual({ pairId, rank });
  }
  // Each logged question's first result after: the predicted one where it changes, else as before.
  type First = { filename: string | null; chunk_text: string | null; score: number | null };
  const predictedQuestions = new Map<string, First>(body.questions.changed.map((c: { text: string; after: First }) => [c.text, c.after]));
  for (const q of LOGGED) {
    const now = await first(agent, q);
    const predicted = predictedQuestions.get(q);
    if (predicted) {
      // Changed: the predicted first result, its distance to the last bit.
      const expected =
        predicted.filename === null ? null : { filename: predicted.filename, chunk_text: predicted.chunk_text, score: predicted.score };
      expect({ q, first: now }).toEqual({ q, first: expected });
    } else {
      // Unchanged: the same chunk first (its distance may move with the agent's word counts).
      const was = logged.get(q);
      expect({ q, first: now && { filename: now.filename, chunk_text: now.chunk_text } }).toEqual({
        q,
        first: was && { filename: was.filename, chunk_text: was.chunk_text },
      });
    }
  }
  return body;
}

describe("GET /api/agents/{id}/drafts/{draftId}/impact", () => {
  it("predicts, exactly, what an evaluation run measures and what logged questions return once the draft is published", async () => {
    const { agentId, agent } = await setUp("impact exact");
    const newDraft = async (name: string) => (await call(drafts.POST, { json: { name }, params: { id: agent } })).body.id as number;

    // A content draft in vector mode: a question attached, a noisy article removed, an article rewritten.
    const d1 = await newDraft("content");
    const router = await chunksOf(agent, idOf(agentId, "router.md"));
    expect(
      (
        await call(chunk.PATCH, {
          method: "PATCH",
          json: { questions: ["wipe the modem back to defaults", "factory reset"] },
          params: { id: agent, chunkId: String(router[0].id) },
          url: `?draft=${d1}`,
        })
      ).status,
    ).toBe(200);
    const boilerplate = idOf(agentId, "boilerplate.md");
    expect(
      (await call(doc.DELETE, { method: "DELETE", params: { id: agent, docId: String(boilerplate) }, url: `?draft=${d1}` })).status,
    ).toBe(200);
    const account = await chunksOf(agent, idOf(agentId, "account.md"));
    expect(
      (
        await call(chunk.PATCH, {
          method: "PATCH",
          json: { text: "Workspace ownership. The account owner can give the workspace to another member from the members page." },
          params: { id: agent, chunkId: String(account[1].id) },
          url: `?draft=${d1}`,
        })
      ).status,
    ).toBe(200);
    const one = await expectPredicted(agentId, agent, d1);
    expect(one.pairs.changed.length).toBeGreaterThan(0); // the draft moved ranks, so the check above compared something
    expect(one.settings.mode).toEqual({ before: "vector", after: "vector" });

    // A retrieval draft: hybrid mode and a cut, with one more chunk change.
    const d2 = await newDraft("settings");
    expect(
      (
        await call(agentRoute.PATCH, {
          method: "PATCH",
          json: { retrieval_mode: "hybrid", max_distance: 0.9 },
          params: { id: agent },
          url: `?draft=${d2}`,
        })
      ).status,
    ).toBe(200);
    const sla = await chunksOf(agent, idOf(agentId, "sla.md"));
    expect(
      (
        await call(chunk.PATCH, {
          method: "PATCH",
          json: { questions: ["reach a human", "talk to someone"] },
          params: { id: agent, chunkId: String(sla[0].id) },
          url: `?draft=${d2}`,
        })
      ).status,
    ).toBe(200);
    const two = await expectPredicted(agentId, agent, d2);
    expect(two.settings.mode).toEqual({ before: "vector", after: "hybrid" });
    expect(two.settings.cut).toEqual({ before: null, after: 0.9 });
    expect(two.pairs.changed.length + two.questions.changed.length).toBeGreaterThan(0);
  });

  it("changes nothing served, leaves no table behind, and says when what the draft builds on changed", async () => {
    const { agentId, agent } = await setUp("impact side effects");
    const draftId = (await call(drafts.POST, { json: { name: "d" }, params: { id: agent } })).body.id as number;
    // A pair the agent misses at k = 3: its question attached to its article's first chunk.
    const run = await evaluate(agentId, 3);
    const missed = runResults(run.id).find((r) => r.rank === null || r.rank > 3)!;
    expect(missed).toBeDefined();
    const target = await chunksOf(agent, idOf(agentId, missed.expected));
    await call(chunk.PATCH, {
      method: "PATCH",
      json: { questions: [missed.query] },
      params: { id: agent, chunkId: String(target[0].id) },
      url: `?draft=${draftId}`,
    });
    const served = await first(agent, missed.query, 5);
    const res = await impactOf(agent, draftId);
    expect(res.status).toBe(200);
    expect(res.body.base_changed).toBe(false);
    const rescued = res.body.pairs.changed.find((c: { pair_id: number }) => c.pair_id === missed.pair_id);
    expect(rescued).toMatchObject({ rank: { before: missed.rank }, hit: { before: false, after: true } });
    expect(res.body.pairs.rescued).toBeGreaterThanOrEqual(1);
    expect(await first(agent, missed.query, 5)).toEqual(served); // nothing served changed
    expect(db().prepare("SELECT name FROM sqlite_temp_master WHERE name LIKE 'draft_keywords%'").all()).toEqual([]);

    // The served article is replaced meanwhile: the draft says so, and its impact is read over what is served now.
    await ingest(agentId, missed.expected, "Rewritten meanwhile: this article now says something else.", 140, 0);
    const again = await impactOf(agent, draftId);
    expect(again.status).toBe(200);
    expect(again.body.base_changed).toBe(true);
  });

  it("refuses bad input: another agent's draft, k and questions out of range", async () => {
    const { agent } = await setUp("impact bad input");
    const other = String(newAgent("impact other").id);
    const theirs = (await call(drafts.POST, { json: { name: "theirs" }, params: { id: other } })).body.id as number;
    expect((await impactOf(agent, theirs)).status).toBe(404);
    expect((await impactOf(agent, 999_999)).status).toBe(404);
    const mine = (await call(drafts.POST, { json: { name: "mine" }, params: { id: agent } })).body.id as number;
    for (const q of ["k=0", "k=21", "k=two", "questions=-1", "questions=5001"]) {
      const res = await impactOf(agent, mine, q);
      expect({ q, status: res.status }).toEqual({ q, status: 422 });
      expect(res.body.error.message).toMatch(
        q.startsWith("k") ? /k must be an integer from 1 to 20/ : /questions must be an integer from 0 to 5000/,
      );
    }
    // An empty draft changes nothing.
    const empty = await impactOf(agent, mine);
    expect(empty.status).toBe(200);
    expect(empty.body.pairs.changed).toEqual([]);
    expect(empty.body.questions.changed).toEqual([]);
    expect(empty.body.pairs.recall_at_k.after).toBe(empty.body.pairs.recall_at_k.before);
  });
});

describe("POST /api/agents/{id}/inspect?draft=", () => {
  it("ranks as the draft would leave the agent, the expected document's draft version in place of the served one", async () => {
    const { agentId, agent } = await setUp("inspect through a draft");
    const run = await evaluate(agentId, 3);
    const missed = runResults(run.id).find((r) => r.rank === null || r.rank > 3)!;
    const served = idOf(agentId, missed.expected);
    const draftId = (await call(drafts.POST, { json: { name: "d" }, params: { id: agent } })).body.id as number;
    const target = await chunksOf(agent, served);
    await call(chunk.PATCH, {
      method: "PATCH",
      json: { questions: [missed.query] },
      params: { id: agent, chunkId: String(target[0].id) },
      url: `?draft=${draftId}`,
    });
    const look = (url = "") =>
      call(inspect.POST, { json: { query: missed.query, top_k: 3, expected_document_id: served }, params: { id: agent }, url });
    const now = await look();
    expect(now.body.expected.document_id).toBe(served);
    expect(now.body.expected.best_rank).toBe(missed.rank);
    const through = await look(`?draft=${draftId}`);
    expect(through.status).toBe(200);
    expect(through.body.expected.document_id).not.toBe(served); // the draft's version
    expect(through.body.expected.best_rank).toBe(1);
    expect(through.body.results[0]).toMatchObject({ filename: missed.expected, document_id: through.body.expected.document_id });
    // What is served did not move, and nothing of the draft's view is left behind.
    expect((await look()).body.expected.best_rank).toBe(missed.rank);
    expect(db().prepare("SELECT name FROM sqlite_temp_master WHERE name LIKE 'draft_keywords%'").all()).toEqual([]);
    const other = String(newAgent("inspect other").id);
    const theirs = (await call(drafts.POST, { json: { name: "theirs" }, params: { id: other } })).body.id as number;
    expect((await look(`?draft=${theirs}`)).status).toBe(404);
  });
});

describe("POST /api/agents/{id}/questions/replay?draft=", () => {
  it("asks the logged questions as the draft would answer them: the first documents the impact predicts", async () => {
    const { agentId, agent } = await setUp("replay through a draft");
    const draftId = (await call(drafts.POST, { json: { name: "d" }, params: { id: agent } })).body.id as number;
    // The SLA article answers "talk to someone" in the draft; the shipping article is removed.
    const sla = await chunksOf(agent, idOf(agentId, "sla.md"));
    await call(chunk.PATCH, {
      method: "PATCH",
      json: { questions: ["talk to someone", "billing receipt"] },
      params: { id: agent, chunkId: String(sla[0].id) },
      url: `?draft=${draftId}`,
    });
    const predicted = (await impactOf(agent, draftId)).body.questions.changed as { text: string; after: { filename: string | null } }[];
    expect(predicted.length).toBeGreaterThan(0);
    const replayed = async (url = "") =>
      (await call(replay.POST, { json: { limit: 100 }, params: { id: agent }, url })).body.questions as {
        question: string;
        first_changed: boolean;
        now: { first: { filename: string } | null };
      }[];
    expect((await replayed()).filter((q) => q.first_changed)).toEqual([]); // served: as they were asked
    const through = await replayed(`?draft=${draftId}`);
    for (const p of predicted) {
      const q = through.find((r) => r.question === p.text)!;
      expect({ q: p.text, first: q.now.first?.filename ?? null }).toEqual({ q: p.text, first: p.after.filename });
    }
    expect(db().prepare("SELECT name FROM sqlite_temp_master WHERE name LIKE 'draft_keywords%'").all()).toEqual([]);
  });
});
