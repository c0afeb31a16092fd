import { describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { ingest, newAgent } from "@/test/helpers";
import { HELP, LOGGED, PAIRS } from "@/test/help-centre";
import { createPair, listPairs } from "@/lib/db/pairs";
import { listDrafts } from "@/lib/db/drafts";
import { runResults } from "@/lib/db/eval-runs";
import { evaluate } from "@/lib/evaluation/run";
import { auditIndex } from "@/lib/index-upkeep/audit";
import * as drafts from "../../../drafts/route";
import * as publish from "../../../drafts/[draftId]/publish/route";
import * as fixes from "./route";

async function setUp(name: string) {
  const agentId = newAgent(name).id;
  for (const [filename, text] of Object.entries(HELP)) await ingest(agentId, filename, text, 140, 0);
  for (const [query, expected] of PAIRS) createPair(agentId, { query, expected_filename: expected });
  const agent = String(agentId);
  for (const query of LOGGED) expect((await call(search.POST, { json: { query, top_k: 3 }, params: { id: agent } })).status).toBe(200);
  return { agentId, agent };
}

const fixesOf = (agent: string, pairId: number, query = "k=3") =>
  call(fixes.GET, { method: "GET", params: { id: agent, pairId: String(pairId) }, url: `?${query}` });
const hits = (runId: number) => new Map(runResults(runId).map((r) => [r.pair_id!, !r.beyond_cut && r.rank !== null && r.rank <= 3]));

interface Fix {
  title: string;
  change: { kind: string };
  rescues: boolean;
  scored: boolean;
  rank: { before: number | null; after: number | null };
  recall_at_k: { before: number; after: number };
  regressions: { pairs: { pair_id: number }[]; questions: unknown[] };
  also_rescues: { pair_id: number }[];
}

describe("GET /api/agents/{id}/pairs/{pairId}/fixes", () => {
  it("scores each candidate by its draft's impact, leaves no draft or vector behind, and the best one does what it said once published", async () => {
    const { agentId, agent } = await setUp("fixes");
    const before = await evaluate(agentId, 3);
    const missed = runResults(before.id).filter((r) => r.rank === null || r.rank > 3);
    expect(missed.length).toBeGreaterThan(0);
    const pair = missed[0];
    const res = await fixesOf(agent, pair.pair_id!);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pair_id: pair.pair_id, expected: pair.expected, missed: true, rank: pair.rank });
    const list = res.body.fixes as Fix[];
    const kinds = new Set(list.map((f) => f.change.kind));
    for (const kind of ["questions", "rechunk", "mode"]) expect(kinds).toContain(kind);
    // Best first: a rescue with no regression leads when there is one.
    const clean = list.filter((f) => f.rescues && f.regressions.pairs.length + f.regressions.questions.length === 0);
    expect(clean.length).toBeGreaterThan(0);
    expect(list[0]).toEqual(clean[0]);
    for (const f of list) {
      expect(f.rescues).toBe(f.rank.after !== null && f.rank.after <= 3);
      expect(f.scored).toBe(f.rescues); // only a rescue is read over every pair and question
      if (!f.scored) expect(f).not.toHaveProperty("regressions");
    }
    // The candidates' drafts are gone, with their vectors.
    expect(listDrafts(agentId)).toEqual([]);
    expect((await auditIndex()).orphan_vectors.filter((o) => o.agent_id === agentId)).toEqual([]);

    // Staged in one click, published: the pair passes, and exactly the predicted pairs changed hands.
    const staged = await call(drafts.POST, { json: { name: list[0].title, fix: list[0].change }, params: { id: agent } });
    expect(staged.status).toBe(201);
    expect(staged.body.documents.length + Object.keys(staged.body.settings).length).toBeGreaterThan(0);
    expect((await call(publish.POST, { params: { id: agent, draftId: String(staged.body.id) } })).status).toBe(200);
    const after = await evaluate(agentId, 3);
    expect(after.recall_at_k!["3"]).toBe(list[0].recall_at_k.after);
    const [was, now] = [hits(before.id), hits(after.id)];
    expect(now.get(pair.pair_id!)).toBe(true);
    const flipped = [...now]
      .filter(([id, hit]) => hit !== was.get(id))
      .map(([id]) => id)
      .sort((a, b) => a - b);
    const predicted = [pair.pair_id!, ...list[0].also_rescues.map((p) => p.pair_id), ...list[0].regressions.pairs.map((p) => p.pair_id)];
    expect(flipped).toEqual(predicted.sort((a, b) => a - b));
  });

  it("answers a pair the agent finds with no fixes, and refuses pairs of another agent, missing documents and bad k", async () => {
    const { agentId, agent } = await setUp("fixes edges");
    const run = await evaluate(agentId, 3);
    const found = runResults(run.id).find((r) => r.rank === 1)!;
    const ok = await fixesOf(agent, found.pair_id!);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ missed: false, rank: 1, fixes: [] });

    const other = newAgent("fixes other");
    const theirs = createPair(other.id, { query: "anything", expected_filename: "router.md" });
    expect((await fixesOf(agent, theirs.id)).status).toBe(404);
    const nowhere = createPair(agentId, { query: "where is the manual", expected_filename: "manual.md" });
    const missing = await fixesOf(agent, nowhere.id);
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/no document named "manual.md"/);
    expect((await fixesOf(agent, found.pair_id!, "k=0")).status).toBe(422);
    expect(listPairs(agentId).length).toBe(PAIRS.length + 1);
  });

  it("stages no draft when a fix's change is refused", async () => {
    const { agentId, agent } = await setUp("fixes refused");
    for (const fix of [
      { kind: "switch_off", chunk_id: 999_999_999 },
      { kind: "rechunk", document_id: 999_999, chunk_size: 200, chunk_overlap: 10 },
      { kind: "rechunk", document_id: 1, chunk_size: 100, chunk_overlap: 100 },
      { kind: "mode", retrieval_mode: "semantic" },
      { kind: "unknown" },
    ]) {
      const res = await call(drafts.POST, { json: { name: "bad", fix }, params: { id: agent } });
      expect({ fix, status: res.status }).toEqual({ fix, status: expect.any(Number) });
      expect([404, 422]).toContain(res.status);
    }
    expect(listDrafts(agentId)).toEqual([]);
  });
});
