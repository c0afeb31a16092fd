import { describe, expect, it } from "vitest";
import * as sweepsApi from "@/app/api/agents/[id]/sweeps/route";
import * as applyApi from "@/app/api/agents/[id]/sweeps/[sweepId]/apply/route";
import { chroma, collectionFor } from "../vector-store/client";
import { embedder } from "../embeddings/configured";
import { getDocument, listDocuments } from "../db/documents";
import { createPair } from "../db/pairs";
import { insertSweep, getSweep } from "../db/sweeps";
import { chunkText } from "../core/chunking";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { call } from "../../test/http";
import { startEvaluation } from "./run";
import { recoverSweeps, startSweep } from "./sweep";
import { applySweepRow } from "./sweep-apply";

const GUIDE = Array.from(
  { length: 6 },
  (_, i) =>
    `## Part ${i + 1}\n\n` +
    [
      "Create a workspace and invite your team from the members page.",
      "Notifications go out by email or push; pick them in your profile.",
      "Two-factor authentication asks for a code from an authenticator app.",
      "Exports download every project as a ZIP of CSV files.",
    ][i % 4] +
    " The mobile app syncs when the phone is back online.",
).join("\n\n");

async function agentWithPairs(name: string) {
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.txt`, `${text}\n\n${text}`);
  await ingest(agent.id, "guide.md", GUIDE);
  for (const [query, expected] of [
    ["how fast does premium support answer", "sla.txt"],
    ["when will my refund arrive", "refunds.txt"],
    ["reset email link expired", "password.txt"],
    ["download invoice as pdf", "invoices.txt"],
    ["export projects as csv zip", "guide.md"],
    ["authenticator code for login", "guide.md"],
    ["office parking rules", "sla.txt"], // a miss for every setting, most likely
  ]) {
    createPair(agent.id, { query, expected_filename: expected });
  }
  return agent;
}

const liveVectorIds = async (agentId: number) =>
  (await (await collectionFor(embedder())).get({ where: { agent_id: agentId }, include: [] })).ids.sort();
const sweepCollections = async () =>
  (await chroma().listCollections({ limit: 1000 }))
    .map((c) => c.name)
    .filter((n) => n.startsWith(`${process.env.CHROMA_COLLECTION_PREFIX}_sweep-`));

describe("chunk-settings sweep", () => {
  it("measures each setting in a temporary index as a run would on the live one, leaves the live index alone, and applies a row", async () => {
    const agent = await agentWithPairs("sweep");
    const other = newAgent("sweep other"); // its documents must never count
    await ingest(other.id, "refunds.txt", ARTICLES.refunds);
    const liveBefore = await liveVectorIds(agent.id);
    const docsBefore = listDocuments(agent.id);

    const settings = [
      { chunk_size: 800, chunk_overlap: 100, chunk_strategy: "boundary" as const },
      { chunk_size: 60, chunk_overlap: 10, chunk_strategy: "fixed" as const },
      { chunk_size: 120, chunk_overlap: 0, chunk_strategy: "boundary" as const },
    ];
    const { sweep, done } = startSweep(agent.id, settings, 3);
    expect(sweep).toMatchObject({ status: "running", n_pairs: 7, n_documents: 5, progress: { done: 0, total: 3 * (5 + 7) } });
    // One sweep or apply at a time per agent.
    expect(() => startSweep(agent.id, settings, 3)).toThrow(/already running/);
    const finished = await done;
    expect(finished.status).toBe("done");
    expect(finished.progress).toEqual({ done: 36, total: 36 });
    expect(finished.rows.map((r) => r.current)).toEqual([true, false, false]);

    // Chunk counts are what the chunker makes of this agent's documents, and no one else's.
    const docs = listDocuments(agent.id);
    for (const [i, s] of settings.entries()) {
      const expected = docs.reduce(
        (n, d) => n + chunkText(getDocument(agent.id, d.id).text, s.chunk_size, s.chunk_overlap, s.chunk_strategy).length,
        0,
      );
      expect(finished.rows[i].chunks).toBe(expected);
    }

    // The current setting's row says what an evaluation of the live index says.
    const live = await startEvaluation(agent.id, 3).done;
    expect(finished.rows[0].recall_at_k).toEqual({
      "1": live.recall_at_k!["1"],
      "3": live.recall_at_k!["3"],
      "5": live.recall_at_k!["5"],
      "10": live.recall_at_k!["10"],
    });
    expect(finished.rows[0].mrr).toBeCloseTo(live.mrr!, 9);
    expect(new Set(finished.rows.map((r) => JSON.stringify(r.recall_at_k))).size).toBeGreaterThan(1); // the settings do differ

    // Nothing live changed, and the temporary indexes are gone.
    expect(await liveVectorIds(agent.id)).toEqual(liveBefore);
    expect(listDocuments(agent.id)).toEqual(docsBefore);
    expect(await sweepCollections()).toEqual([]);

    // Applying row 1 re-indexes every document with its setting; a run then measures what the row said.
    const applied = applySweepRow(agent.id, finished.id, 1);
    expect(applied.sweep.apply).toMatchObject({ row: 1, status: "running", total: 5 });
    const after = await applied.done;
    expect(after.apply).toMatchObject({ row: 1, status: "done", done: 5, total: 5, error: null });
    expect(after.rows.map((r) => r.current)).toEqual([false, true, false]);
    expect(listDocuments(agent.id).map((d) => [d.chunk_size, d.chunk_overlap, d.chunk_strategy])).toEqual(Array(5).fill([60, 10, "fixed"]));
    const rerun = await startEvaluation(agent.id, 3).done;
    expect(rerun.recall_at_k!["3"]).toBe(finished.rows[1].recall_at_k!["3"]);
    expect(rerun.mrr).toBeCloseTo(finished.rows[1].mrr!, 9);
  }, 120_000);

  it("refuses what cannot be measured, with the reason, and starts nothing", async () => {
    const bare = newAgent("sweep bare");
    await ingest(bare.id, "a.txt", ARTICLES.sla);
    const post = (id: number, json: unknown) => call(sweepsApi.POST, { json, params: { id: String(id) } });
    const noPairs = await post(bare.id, { settings: [{ chunk_size: 400, chunk_overlap: 0 }] });
    expect(noPairs.status).toBe(422);
    expect(noPairs.body.error.message).toMatch(/no labeled pairs/);

    const agent = await agentWithPairs("sweep refusals");
    const bad = await post(agent.id, { settings: [{ chunk_size: 100, chunk_overlap: 100 }] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/smaller than chunk_size/);
    const twice = await post(agent.id, {
      settings: [{ chunk_size: 400 }, { chunk_size: 400, chunk_overlap: 100, chunk_strategy: "boundary" }],
    });
    expect(twice.status).toBe(422);
    expect(twice.body.error.message).toMatch(/listed twice/);
    expect((await post(agent.id, { settings: [] })).status).toBe(422);
    expect((await post(agent.id, { settings: Array.from({ length: 13 }, (_, i) => ({ chunk_size: 100 + i })) })).status).toBe(422);

    const started = await post(agent.id, { settings: [{ chunk_size: 200, chunk_overlap: 0 }], k: 5 });
    expect(started.status).toBe(202);
    expect((await post(agent.id, { settings: [{ chunk_size: 300, chunk_overlap: 0 }] })).status).toBe(409);
    await expect.poll(() => getSweep(agent.id, started.body.id).status, { timeout: 60_000 }).toBe("done");
    const row = getSweep(agent.id, started.body.id).rows[0];
    expect(Object.keys(row.recall_at_k!).sort()).toEqual(["1", "10", "3", "5"]);
    const apply = (json: unknown) => call(applyApi.POST, { json, params: { id: String(agent.id), sweepId: String(started.body.id) } });
    expect((await apply({ row: 4 })).status).toBe(422);
    expect(
      (await call(applyApi.POST, { json: { row: 0 }, params: { id: String(bare.id), sweepId: String(started.body.id) } })).status,
    ).toBe(404);
  }, 120_000);

  it("at start, fails a sweep the stop cut off and removes its temporary collections", async () => {
    const agent = newAgent("sweep cut off");
    const id = insertSweep({
      agent_id: agent.id,
      k: 3,
      n_pairs: 1,
      n_documents: 1,
      progress_total: 2,
      rows: [
        {
          chunk_size: 400,
          chunk_overlap: 0,
          chunk_strategy: "boundary",
          status: "running",
          chunks: null,
          recall_at_k: null,
          mrr: null,
          current: false,
          error: null,
        },
      ],
    });
    await chroma().createCollection({ name: `${process.env.CHROMA_COLLECTION_PREFIX}_sweep-${id}-0`, embeddingFunction: null });
    expect(await sweepCollections()).toHaveLength(1);
    expect(await recoverSweeps()).toBe(1);
    expect(getSweep(agent.id, id)).toMatchObject({ status: "failed", error: expect.stringMatching(/server stopped/) });
    expect(getSweep(agent.id, id).rows[0].status).toBe("failed");
    expect(await sweepCollections()).toEqual([]);
  });
});
