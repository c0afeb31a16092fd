import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "../env.mjs";
import { embedder } from "../embeddings/configured";
import { chunkId, collectionFor } from "../vector-store/client";
import { agentVectors } from "../vector-store/chunks";
import { ingest, newAgent } from "../../test/helpers";
import { rebuildState } from "./rebuild";
import { damageCallsForRebuild, recheckState, REBUILD_SHARE, useRecheckWindow, watchChromaRestarts } from "./after-restart";

describe("a rebuild after an unclean exit is for damage, not for the one node a graph loses now and then", () => {
  it("writes one lost chunk of 600 again and leaves the index as it is", async () => {
    const agent = newAgent("share");
    // 600 chunks of 20 characters: one lost is below REBUILD_SHARE of those checked.
    const text = Array.from({ length: 600 }, (_, i) => `note ${String(i).padStart(4, "0")} kept.`.padEnd(20, " ")).join("");
    const doc = await ingest(agent.id, "notes.txt", text, 20, 0, "fixed");
    expect(doc.chunk_count).toBe(600);
    expect(damageCallsForRebuild(1, 600)).toBe(false);
    expect(1 / 600).toBeLessThan(REBUILD_SHARE);

    // The crash cut off one chunk's vector, and the launcher counted an unclean exit.
    const collection = await collectionFor(embedder());
    const lost = chunkId(doc.document_id!, 300);
    await collection.delete({ ids: [lost], where: { agent_id: agent.id } });
    expect(await agentVectors(collection, agent.id, [lost])).toEqual([]);
    useRecheckWindow(1_000);
    const before = recheckState().last_finished_at;
    const chromaDir = path.join(env().DATA_DIR, "chroma");
    fs.mkdirSync(chromaDir, { recursive: true });
    fs.writeFileSync(path.join(chromaDir, "unclean-restarts"), "1\n");
    watchChromaRestarts(100);

    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBe(before);
    expect(recheckState()).toMatchObject({
      state: "idle",
      reason: "Chroma restarted after an unclean exit",
      checked: 600,
      rewritten: 1,
      still_unreachable: 0,
    });
    expect((await agentVectors(collection, agent.id, [lost])).map((v) => v.id)).toEqual([lost]);
    // Written again from the app's copy; the index was not copied.
    expect(rebuildState().last_finished_at).toBeNull();
    expect(fs.readFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), "utf8").trim()).toBe("1");
    useRecheckWindow(undefined);
  });

  it("calls for a rebuild from REBUILD_SHARE of the chunks checked, and for any chunk of a small check", () => {
    expect(damageCallsForRebuild(0, 10)).toBe(false);
    expect(damageCallsForRebuild(1, 10)).toBe(true);
    expect(damageCallsForRebuild(9, 100)).toBe(true);
    expect(damageCallsForRebuild(9, 5_000)).toBe(false);
    expect(damageCallsForRebuild(10, 5_000)).toBe(true);
  });
});
