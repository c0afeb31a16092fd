import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChroma } from "../../scripts/chroma-server.mjs";

// This file runs its own Chroma so it can kill it and start it again on the same data directory
// and port, as the launcher does.
type Chroma = Awaited<ReturnType<typeof startChroma>>;
let chroma: Chroma;
let dir: string;
let port: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-orphans-"));
  chroma = await startChroma({ dataDir: dir, restart: false });
  port = chroma.port;
  process.env.CHROMA_URL = chroma.url;
  // Only bounds a hung call; every call here gets an answer or a refusal.
  process.env.CHROMA_TIMEOUT_MS = "30000";
});
afterAll(async () => {
  await chroma.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function killChroma() {
  process.kill(chroma.pid()!, "SIGKILL");
  await expect
    .poll(
      async () =>
        fetch(`${chroma.url}/api/v2/heartbeat`).then(
          () => "up",
          () => "down",
        ),
      { timeout: 30_000 },
    )
    .toBe("down");
}

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../db/documents")),
  ...(await import("../ingest/cleanup")),
  ...(await import("./recover")),
  ...(await import("./audit")),
  ...(await import("./after-restart")),
  ...(await import("../vector-store/client")),
  ...(await import("../vector-store/chunks")),
  ...(await import("./write-again")),
  ...(await import("../embeddings/configured")),
  ...(await import("../core/chunking")),
  ...(await import("../ingest/state")),
  ...(await import("./state")),
});

const MANUAL = "The lamp manual, part one.\n\nPart two covers bulbs.\n\nPart three covers the switch.";
const NEW_MANUAL = "The new lamp manual covers the dimmer and the timer.";

/** What a new server process starts with: no clean-up timer, no sweep state of its own. */
async function freshProcess() {
  const { ingestState, idleCleanup, indexUpkeepState, idleOrphanSweep } = await lib();
  const ingest = ingestState();
  if (ingest.cleanup.timer) clearTimeout(ingest.cleanup.timer);
  ingest.cleanup = idleCleanup();
  const upkeep = indexUpkeepState();
  if (upkeep.orphanSweep.timer) clearTimeout(upkeep.orphanSweep.timer);
  upkeep.orphanSweep = idleOrphanSweep();
}

/** The agent's orphan vectors and queued removals, as the audit reports them. */
async function leftOf(agentId: number) {
  const { auditIndex } = await lib();
  const audit = await auditIndex();
  return {
    orphans: audit.orphan_vectors.filter((o) => o.agent_id === agentId).map((o) => o.document_id),
    awaiting: audit.awaiting_cleanup.filter((c) => c.agent_id === agentId).map((c) => c.document_id),
  };
}

/**
 * The interleaving: the check after a Chroma restart writes again a chunk of manual.md that
 * Chroma lost; just as that write goes out, manual.md is replaced (and, while the replace is
 * indexing, its old content is uploaded under another name: a duplicate naming the old version),
 * so the old version's removal completes before the write lands. With `kill`, Chroma is killed
 * once it has applied the write, so the check never hears back.
 */
async function checkWritesAfterReplace(name: string, { kill }: { kill: boolean }) {
  const { newAgent, ingest, vectorsOf, collectionFor, embedder, chunkId, live, requestRecheck, recheckState } = await lib();
  const agent = newAgent(name);
  const old = await ingest(agent.id, "manual.md", MANUAL, 40, 0);
  expect(old.chunk_count).toBe(3);
  const d1 = old.document_id!;
  // A chunk Chroma took back when it was killed: the check writes it again from the app's copy.
  await live(await collectionFor(embedder())).delete({ ids: [chunkId(d1, 1)] });

  const realFetch = globalThis.fetch;
  let phase: "armed" | "replacing" | "held" | "done" = "armed";
  const seen: { replace?: Awaited<ReturnType<typeof ingest>>; duplicate?: Awaited<ReturnType<typeof ingest>>; landed?: number } = {};
  let struck!: () => void;
  const done = new Promise<void>((r) => (struck = r));
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = typeof init?.body === "string" ? init.body : "";
    if (phase === "armed" && url.endsWith("/upsert") && body.includes(`"doc${d1}#`)) {
      phase = "replacing";
      try {
        seen.replace = await ingest(agent.id, "manual.md", NEW_MANUAL, 40, 0);
        const res = await realFetch(input, init);
        seen.landed = (await vectorsOf(agent.id, d1)).length;
        if (!kill) return res;
        await killChroma();
        return await realFetch(input, init); // refused: the answer was lost with Chroma
      } finally {
        phase = "done";
        struck();
      }
    }
    if (phase === "replacing" && url.endsWith("/add")) {
      // The replace's vectors wait until the same content as the old version has been uploaded.
      phase = "held";
      seen.duplicate = await ingest(agent.id, "copy-manual.md", MANUAL, 40, 0);
    }
    return realFetch(input, init);
  };
  try {
    requestRecheck("a test: Chroma answered again", { follow: false, full: false });
    await done;
    await expect.poll(() => recheckState().state, { timeout: 60_000 }).toBe("idle");
  } finally {
    globalThis.fetch = realFetch;
  }
  expect(seen.replace).toMatchObject({ outcome: "replaced", status: "ready" });
  expect(seen.duplicate).toMatchObject({ outcome: "duplicate", document_id: d1 });
  // The write reached Chroma after the old version's removal had completed.
  expect(seen.landed).toBe(1);
  return { agent, d1, d2: seen.replace!.document_id!, d2Chunks: seen.replace!.chunk_count };
}

describe("orphan vectors after a crash", () => {
  it("a write of the check that lands after its document was replaced is removed by the clean-up loop, with nothing else asking", async () => {
    const { findDocument, vectorsOf, pendingCleanups } = await lib();
    const { agent, d1, d2, d2Chunks } = await checkWritesAfterReplace("check races a replace", { kill: false });
    expect(findDocument(agent.id, d1)).toBeUndefined();
    // No request, audit or restart runs the clean-up here: the app's own loop must.
    await expect.poll(async () => (await vectorsOf(agent.id, d1)).length, { timeout: 60_000, interval: 250 }).toBe(0);
    await expect.poll(() => pendingCleanups().filter((c) => c.agent_id === agent.id).length, { timeout: 60_000, interval: 250 }).toBe(0);
    expect(await vectorsOf(agent.id, d2)).toHaveLength(d2Chunks);
  });

  it("Chroma killed once it applied that write: after one restart and settle the audit finds no orphan", async () => {
    const { findDocument, vectorsOf, recoverInterruptedIngests } = await lib();
    const { agent, d1, d2, d2Chunks } = await checkWritesAfterReplace("check write lost", { kill: true });
    expect(findDocument(agent.id, d1)).toBeUndefined();

    chroma = await startChroma({ dataDir: dir, port, restart: false });
    await freshProcess();
    recoverInterruptedIngests();
    // Settled: nothing of the old version left, nothing waiting.
    await expect.poll(() => leftOf(agent.id), { timeout: 90_000, interval: 500 }).toEqual({ orphans: [], awaiting: [] });
    expect(await vectorsOf(agent.id, d1)).toEqual([]);
    expect(await vectorsOf(agent.id, d2)).toHaveLength(d2Chunks);
  });

  it("a write whose process was killed before it could record anything is swept at the next start", async () => {
    const {
      newAgent,
      ingest,
      vectorsOf,
      collectionFor,
      embedder,
      upsertNotedChunks,
      chunkText,
      findDocument,
      recoverInterruptedIngests,
      pendingCleanups,
    } = await lib();
    const agent = newAgent("killed mid-write");
    const old = await ingest(agent.id, "manual.md", MANUAL, 40, 0);
    const d1 = old.document_id!;
    expect((await ingest(agent.id, "copy-manual.md", MANUAL, 40, 0)).document_id).toBe(d1);
    const replace = await ingest(agent.id, "manual.md", NEW_MANUAL, 40, 0);
    expect(replace.outcome).toBe("replaced");
    expect(findDocument(agent.id, d1)).toBeUndefined();
    expect(pendingCleanups().filter((c) => c.agent_id === agent.id)).toEqual([]);
    // The check of the old version had read it as ready and written it again, logged as every
    // write is; the process was killed before it learnt of the replace.
    const chunks = chunkText(MANUAL, 40, 0);
    await upsertNotedChunks(
      await collectionFor(embedder()),
      { agentId: agent.id, documentId: d1 },
      chunks,
      await embedder().embed(chunks.map((c) => c.text)),
      { byCheck: true },
    );
    expect(await leftOf(agent.id)).toEqual({ orphans: [d1], awaiting: [] });

    await freshProcess();
    recoverInterruptedIngests();
    await expect.poll(() => leftOf(agent.id), { timeout: 90_000, interval: 500 }).toEqual({ orphans: [], awaiting: [] });
    expect(await vectorsOf(agent.id, d1)).toEqual([]);
    expect(await vectorsOf(agent.id, replace.document_id!)).toHaveLength(replace.chunk_count);
  });

  it("the audit names no orphan for a document indexed while it reads Chroma", async () => {
    const { newAgent, ingest, auditIndex } = await lib();
    const agent = newAgent("indexed during the audit");
    await ingest(agent.id, "before.md", "Indexed before the audit began.", 40, 0);
    const realFetch = globalThis.fetch;
    let during: Awaited<ReturnType<typeof ingest>> | undefined;
    let armed = true;
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      // The audit's first read of vectors (its first page): its list of documents is read already.
      if (armed && url.endsWith("/get")) {
        armed = false;
        during = await ingest(agent.id, "during.md", "Indexed while the audit read Chroma.", 40, 0);
      }
      return realFetch(input, init);
    };
    let audit;
    try {
      audit = await auditIndex();
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(during).toMatchObject({ status: "ready" });
    expect(audit.orphan_vectors.filter((o) => o.agent_id === agent.id)).toEqual([]);
  });
});
