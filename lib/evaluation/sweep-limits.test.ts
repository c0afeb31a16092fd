import { describe, expect, it } from "vitest";
import * as sweepsApi from "@/app/api/agents/[id]/sweeps/route";
import * as latestApi from "@/app/api/agents/[id]/sweeps/latest/route";
import { chroma } from "../vector-store/client";
import { createPair } from "../db/pairs";
import { chunkText } from "../core/chunking";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { call } from "../../test/http";
import { MAX_SWEEP_ROW_CHUNKS } from "../core/sweep-types";
import { startSweep } from "./sweep";

async function agentWith(name: string, text: string) {
  const agent = newAgent(name);
  await ingest(agent.id, "guide.txt", text);
  createPair(agent.id, { query: "how fast does premium support answer", expected_filename: "guide.txt" });
  return agent.id;
}

const post = (id: number, json: unknown) => call(sweepsApi.POST, { json, params: { id: String(id) } });
const latest = (id: number) => call(latestApi.GET, { method: "GET", params: { id: String(id) } });
const sweepCollections = async () =>
  (await chroma().listCollections({ limit: 1000 }))
    .map((c) => c.name)
    .filter((n) => n.startsWith(`${process.env.CHROMA_COLLECTION_PREFIX}_sweep-`));
const PROSE = Object.values(ARTICLES).join("\n\n");

describe("the chunks one sweep row may make", () => {
  it("refuses a setting past the limit with 422 naming the limit and the row's chunks, and starts nothing", async () => {
    // A little more text than the limit has characters: a chunk per character is over it.
    const text = PROSE.repeat(Math.ceil((MAX_SWEEP_ROW_CHUNKS + 5_000) / PROSE.length));
    const id = await agentWith("sweep too many chunks", text);
    const limit = MAX_SWEEP_ROW_CHUNKS.toLocaleString("en-US");
    const chars = text.length.toLocaleString("en-US");

    const perCharacter = await post(id, {
      settings: [
        { chunk_size: 800, chunk_overlap: 100 },
        { chunk_size: 1, chunk_overlap: 0, chunk_strategy: "fixed" },
      ],
    });
    expect(perCharacter.status).toBe(422);
    expect(perCharacter.body.error.code).toBe("invalid_request");
    expect(perCharacter.body.error.message).toBe(
      `The setting 1 / 0 fixed would cut this agent's documents into ${chars} chunks; a sweep row makes at most ${limit}. ` +
        "Pick a larger chunk size or a smaller overlap.",
    );
    // A window that moves one character at a time makes as many; the boundary chunker is counted the same way.
    const creeping = await post(id, { settings: [{ chunk_size: 50, chunk_overlap: 49, chunk_strategy: "boundary" }] });
    expect(creeping.status).toBe(422);
    expect(creeping.body.error.message).toMatch(new RegExp(`into about [\\d,]+ chunks; a sweep row makes at most ${limit}\\.`));

    expect(await latest(id)).toEqual({ status: 200, body: null });
    expect(await sweepCollections()).toEqual([]);
    // Within the limit the same agent's sweep starts.
    expect((await post(id, { settings: [{ chunk_size: 2_000, chunk_overlap: 0 }] })).status).toBe(202);
    await expect.poll(async () => (await latest(id)).body.status, { timeout: 60_000 }).toBe("done");
  }, 60_000);

  it("stops a row whose chunks, as the chunker makes them, pass the limit", async () => {
    const id = await agentWith("sweep boundary count", PROSE);
    // The limit lets in the count by fixed windows; boundary chunks of this text are more.
    const fixed = chunkText(PROSE, 40, 0, "fixed").length;
    expect(chunkText(PROSE, 40, 0, "boundary").length).toBeGreaterThan(fixed);
    const settings = [
      { chunk_size: 40, chunk_overlap: 0, chunk_strategy: "boundary" as const },
      { chunk_size: 40, chunk_overlap: 0, chunk_strategy: "fixed" as const },
    ];
    const finished = await startSweep(id, settings, 3, { maxRowChunks: fixed }).done;
    expect(finished.rows[0]).toMatchObject({
      status: "failed",
      chunks: null,
      error: expect.stringMatching(
        new RegExp(
          `^The setting 40 / 0 boundary would cut this agent's documents into at least [\\d,]+ chunks; a sweep row makes at most ${fixed}\\.`,
        ),
      ),
    });
    expect(finished.rows[1]).toMatchObject({ status: "done", chunks: fixed });
    expect(await sweepCollections()).toEqual([]);
  });
});

describe("GET /api/agents/{id}/sweeps/latest", () => {
  it("answers 200 with null before the agent's first sweep, then the sweep", async () => {
    const id = await agentWith("sweep latest", PROSE);
    expect(await latest(id)).toEqual({ status: 200, body: null });
    const { sweep, done } = startSweep(id, [{ chunk_size: 400, chunk_overlap: 0, chunk_strategy: "boundary" }], 3);
    await done;
    expect(await latest(id)).toMatchObject({ status: 200, body: { id: sweep.id, status: "done" } });
    expect((await call(latestApi.GET, { method: "GET", params: { id: "424242" } })).status).toBe(404);
  });
});
