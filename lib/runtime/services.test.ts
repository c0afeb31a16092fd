import { afterAll, describe, expect, it, vi } from "vitest";
import { chunkText } from "../core/chunking";
import { getDocument, insertDocument } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { extractPool } from "../extract/state";
import { restartWatchLooks } from "../index-upkeep/after-restart";
import { indexUpkeepState } from "../index-upkeep/state";
import { newAgent } from "../../test/helpers";
import { servicesStarted, startServices, stopServices } from "./services";

afterAll(() => stopServices());

describe("the background services", () => {
  it("start once per process, recovering what a stopped server left, and stop from one place", async () => {
    const agent = newAgent("services");
    const text = "An article whose ingest a stopped server cut off. ".repeat(4);
    const id = insertDocument(
      {
        agent_id: agent.id,
        filename: "cut-off.txt",
        type: "txt",
        sha256: "cut-off",
        bytes: text.length,
        chunk_size: 100,
        chunk_overlap: 0,
        text,
        embedding_model: embedder().model,
      },
      chunkText(text, 100, 0),
    );
    const looks = restartWatchLooks();
    startServices({ restartWatchMs: 50 });
    expect(servicesStarted()).toBe(true);
    expect(getDocument(agent.id, id)).toMatchObject({ status: "failed", error: expect.stringMatching(/interrupted/) });
    const watch = indexUpkeepState().recheck.watch;
    expect(watch).not.toBeNull();
    // Another copy of the module starting them again starts nothing more.
    startServices({ restartWatchMs: 50 });
    expect(indexUpkeepState().recheck.watch).toBe(watch);
    await expect.poll(() => restartWatchLooks(), { timeout: 30_000 }).toBeGreaterThan(looks + 1);

    const close = vi.spyOn(extractPool(), "close");
    await stopServices();
    expect(servicesStarted()).toBe(false);
    expect(indexUpkeepState().recheck.watch).toBeNull();
    expect(close).toHaveBeenCalledTimes(1);

    // Started again after a stop, as a server restarted in the same process would be.
    startServices({ restartWatchMs: 50 });
    expect(indexUpkeepState().recheck.watch).not.toBeNull();
    await stopServices();
    expect(indexUpkeepState().recheck.watch).toBeNull();
  });
});
