import { describe, expect, it, vi } from "vitest";

// A small retention, so that it shows after a handful of runs; read once by env() on first use.
// Exact ranking off: the runs' Chroma queries are what the tests hold to catch a run under way.
vi.hoisted(() => {
  process.env.EVAL_RUNS_KEEP = "3";
  process.env.EXACT_MAX_CHUNKS = "0";
});

import * as evals from "@/app/api/agents/[id]/evals/route";
import * as one from "@/app/api/agents/[id]/evals/[runId]/route";
import { db } from "../db/client";
import { createPair } from "../db/pairs";
import { listRuns } from "../db/eval-runs";
import { RETRIEVAL_MODES } from "../validations/agent";
import { call } from "../../test/http";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { startModeComparison } from "./run";

async function agentWithPairs(name: string) {
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.txt`, text);
  for (const [query, expected] of [
    ["how fast does premium support answer", "sla.txt"],
    ["when will my refund arrive", "refunds.txt"],
    ["reset email link expired", "password.txt"],
    ["download invoice as pdf", "invoices.txt"],
  ]) {
    createPair(agent.id, { query, expected_filename: expected });
  }
  return agent.id;
}

const post = (agentId: number, json: unknown) => call(evals.POST, { json, params: { id: String(agentId) } });
const runStatus = async (agentId: number, runId: number) =>
  (await call(one.GET, { method: "GET", params: { id: String(agentId), runId: String(runId) } })).body.status;
const resultRows = (runId: number) =>
  (db().prepare("SELECT COUNT(*) AS n FROM eval_results WHERE run_id = ?").get(runId) as { n: number }).n;
const STARTED_AT = "\\(started \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d";

describe("one evaluation per agent at a time", () => {
  it("answers 409 naming the running run to a second start sent at the same moment, over several trials", async () => {
    const agentId = await agentWithPairs("one at a time");
    const other = await agentWithPairs("one at a time, other agent");
    for (let trial = 0; trial < 4; trial++) {
      const answers = await Promise.all([
        post(agentId, { k: 3, wait: false }),
        post(agentId, { k: 3, wait: false }),
        post(other, { k: 3, wait: false }), // another agent's run is not held up
      ]);
      const mine = answers.slice(0, 2);
      const started = mine.filter((a) => a.status === 202);
      const refused = mine.filter((a) => a.status === 409);
      expect(started, JSON.stringify(mine)).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const runId = started[0].body.run_id;
      expect(refused[0].body.error.code).toBe("conflict");
      expect(refused[0].body.error.message).toMatch(new RegExp(`^Evaluation run ${runId} of this agent is already running ${STARTED_AT}`));
      expect(answers[2].status).toBe(202);

      await expect.poll(() => runStatus(agentId, runId), { timeout: 30_000 }).toBe("done");
      await expect.poll(() => runStatus(other, answers[2].body.run_id), { timeout: 30_000 }).toBe("done");
    }
    // Once it is done, the next one starts (and answers when done, as before).
    expect((await post(agentId, { k: 3 })).status).toBe(201);
  });

  it("holds the agent through a comparison of modes, from its first run to its last", async () => {
    const agentId = await agentWithPairs("comparison");
    // Chroma queries wait until the test lets them go, so it can ask while a given run is going on.
    const held: (() => void)[] = [];
    let holding = true;
    const original = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (holding && url.endsWith("/query")) await new Promise<void>((go) => held.push(go));
      return original(input, init);
    };
    const release = () => held.splice(0).forEach((go) => go());
    try {
      const comparison = startModeComparison(agentId, 3);
      const runs = () => listRuns(agentId).filter((r) => r.id >= comparison.runId);
      /** Lets queries go until the comparison's `n`th run is the newest and waits on one of its queries. */
      const during = async (n: number) => {
        for (;;) {
          await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);
          if (runs().length === n) return runs()[n - 1];
          release();
        }
      };
      for (let n = 1; n <= RETRIEVAL_MODES.length; n++) {
        const run = await during(n);
        expect(run).toMatchObject({ status: "running", retrieval_mode: RETRIEVAL_MODES[n - 1] });
        const refused = await post(agentId, { k: 3, wait: false });
        expect(refused.status).toBe(409);
        expect(refused.body.error.message).toMatch(
          new RegExp(
            `^Evaluation run ${run.id} of this agent \\(${n} of the 3 of a comparison of retrieval modes\\) is already running ${STARTED_AT}`,
          ),
        );
        expect(() => startModeComparison(agentId, 3)).toThrow(/already running/);
      }
      holding = false;
      release();
      expect((await comparison.done).map((r) => [r.retrieval_mode, r.status])).toEqual(RETRIEVAL_MODES.map((m) => [m, "done"]));
      expect(runs()).toHaveLength(3);
    } finally {
      holding = false;
      globalThis.fetch = original;
      release();
    }
    expect((await post(agentId, { k: 3 })).status).toBe(201);
  });

  it("frees the agent when a run fails", async () => {
    const agentId = await agentWithPairs("failing run");
    db().prepare("UPDATE documents SET embedding_model = 'old-model' WHERE agent_id = ?").run(agentId);
    expect((await post(agentId, { k: 3 })).body.error.code).toBe("embedding_model_mismatch");
    expect((await post(agentId, { k: 3 })).body.error.code).toBe("embedding_model_mismatch");
  });
});

describe("retention of evaluation runs", () => {
  it("keeps each agent's newest EVAL_RUNS_KEEP finished runs, deleting older ones and their per-pair rows as a run finishes", async () => {
    const agentId = await agentWithPairs("retention");
    const other = await agentWithPairs("retention, other agent");
    const otherRun = (await post(other, { k: 3 })).body.run_id;

    const ids: number[] = [];
    for (let k = 1; k <= 5; k++) {
      const res = await post(agentId, { k });
      expect(res.status).toBe(201);
      ids.push(res.body.run_id);
      expect(listRuns(agentId).map((r) => r.id)).toEqual(ids.slice(-3));
    }
    for (const gone of ids.slice(0, 2)) {
      expect(resultRows(gone)).toBe(0);
      expect((await call(one.GET, { method: "GET", params: { id: String(agentId), runId: String(gone) } })).status).toBe(404);
    }
    for (const kept of ids.slice(2)) expect(resultRows(kept)).toBe(4);
    expect(listRuns(other).map((r) => r.id)).toEqual([otherRun]);
    expect(resultRows(otherRun)).toBe(4);
  });
});
