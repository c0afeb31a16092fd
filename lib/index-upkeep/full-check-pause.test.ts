import { afterAll, describe, expect, it } from "vitest";
import { embedder } from "../embeddings/configured";
import { startFullCheck } from "../db/index-check";
import { asSearch, useAddClock } from "../vector-store/batched-add";
import { ingest, newAgent } from "../../test/helpers";
import { recheckState, restartWatchLooks, watchChromaRestarts } from "./after-restart";

// The paced full check's own-vector queries share Chroma with searches; it waits for a pause in
// them before each step, and goes anyway after FULL_CHECK_MAX_WAIT_MS (30 s) of waiting. Time
// here is a clock of the test's own: it moves only when the test says.
let t = 0;
let sleeps = 0;
const undo = useAddClock({
  now: () => t,
  sleep: () => {
    sleeps++;
    return new Promise((r) => setImmediate(r));
  },
});
afterAll(undo);

describe("the full check after a crash gives way to searches", () => {
  it("waits while a search is in flight, goes on once searches pause, and does not wait past its limit", async () => {
    const agent = newAgent("full check pause");
    for (const topic of ["refund", "invoice", "printer"])
      await ingest(agent.id, `${topic}.md`, `How to handle a ${topic}: ask the ${topic} desk.`, 800, 0);

    // A search in flight, and a full check to run: the watch starts it, and it waits.
    let release!: () => void;
    const search = asSearch(() => new Promise<void>((r) => (release = r)));
    startFullCheck(embedder().model, null);
    const looks = restartWatchLooks();
    watchChromaRestarts(50);
    await expect.poll(() => restartWatchLooks()).toBeGreaterThan(looks);
    const waitedFrom = sleeps;
    await expect.poll(() => sleeps).toBeGreaterThan(waitedFrom + 20);
    expect(recheckState().full).toMatchObject({ state: "running", checked: 0 });

    // The search ends: the check still waits SEARCH_ACTIVE_MS (2 s) for searches to stop
    // coming, then checks every ready chunk.
    release();
    await search;
    t += 1_000;
    const stillWaiting = sleeps;
    await expect.poll(() => sleeps).toBeGreaterThan(stillWaiting + 20);
    expect(recheckState().full.checked).toBe(0);
    t += 1_500;
    await expect.poll(() => recheckState().full, { timeout: 30_000 }).toMatchObject({ state: "idle", checked: 3, total: 3 });

    // A search that never ends holds a new check up for 30 s of its clock, not longer.
    let never!: () => void;
    const endless = asSearch(() => new Promise<void>((r) => (never = r)));
    startFullCheck(embedder().model, null);
    const again = sleeps;
    await expect.poll(() => sleeps).toBeGreaterThan(again + 20);
    expect(recheckState().full.checked).toBe(0);
    t += 30_001;
    await expect.poll(() => recheckState().full, { timeout: 30_000 }).toMatchObject({ state: "idle", checked: 3, total: 3 });
    never();
    await endless;
  });
});
