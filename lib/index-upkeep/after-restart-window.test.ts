import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "../env.mjs";
import { embedder } from "../embeddings/configured";
import { collectionFor, chunkId } from "../vector-store/client";
import { agentVectors, deleteDocumentVectors } from "../vector-store/chunks";
import { queryAgent } from "../retrieval/index-candidates";
import { readVectorRuns } from "../db/chunk-vectors";
import { clearSuspects, fullCheckAdvance, noteVectorWrite, readySuspects, startFullCheck } from "../db/index-check";
import { ingest, newAgent, vectorsOf } from "../../test/helpers";
import { rebuildState } from "./rebuild";
import { recheckState, requestRecheck, restartWatchLooks, useRecheckWindow, watchChromaRestarts } from "./after-restart";

// Ten documents of six chunks each, written one after another: with a window of 20 chunks, the
// newest four documents (24 chunks, the last one reaching past 20) are suspect after a crash,
// and the other six are left to the paced full check.
const TOPICS = ["refund", "invoice", "password", "shipping", "warranty", "coupon", "printer", "locker", "badge", "parking"];
const article = (topic: string) =>
  Array.from({ length: 6 }, (_, p) => `The ${topic} desk, part ${p}: who to ask about a ${topic}, case ${p}, and when it closes.`).join(
    "\n\n",
  );

describe("the check after a crash follows what the crash could damage", () => {
  it("suspects the newest writes at once, ranks them exactly until checked, checks only them first, and the rest in the background", async () => {
    const e = embedder();
    const collection = await collectionFor(e);
    const agent = newAgent("window");
    const docs = [];
    for (const topic of TOPICS) docs.push(await ingest(agent.id, `${topic}.md`, article(topic), 100, 0));
    expect(docs.every((d) => d.chunk_count === 6)).toBe(true);
    const newest = docs.at(-1)!;
    const firstVector = readVectorRuns([newest.document_id!], e.model)[0];
    const ownVector = Array.from(firstVector.vectors.subarray(0, firstVector.dimension));

    // A write the crash cut off: Chroma lost the newest document's vectors. A query of its
    // agent, by that document's own first chunk, does not return it.
    await deleteDocumentVectors(collection, agent.id, newest.document_id!);
    const ids = (hits: { document_id: number; chunk_index: number }[]) => hits.map((h) => chunkId(h.document_id, h.chunk_index));
    const [missed] = await queryAgent(collection, agent.id, [ownVector], 5);
    expect(ids(missed)).not.toContain(chunkId(newest.document_id!, 0));

    // Chroma is back: the newest documents are suspect at once, before any check has run, and a
    // query ranks their chunks by their exact distance from the app's copy.
    useRecheckWindow(20);
    const before = recheckState().last_finished_at;
    requestRecheck("a test: Chroma answered again");
    const suspect = docs
      .slice(-4)
      .map((d) => d.document_id!)
      .reverse();
    expect(readySuspects(e.model).map((d) => d.id)).toEqual(suspect);
    // Following the restart, a write to the app's collection makes its document suspect; one to
    // another collection (a sweep's) does not.
    noteVectorWrite({
      collection: `${collection.name}-sweep`,
      model: e.model,
      agentId: agent.id,
      documentId: docs[0].document_id!,
      chunks: 6,
    });
    expect(readySuspects(e.model).map((d) => d.id)).toEqual(suspect);
    noteVectorWrite({ collection: collection.name, model: e.model, agentId: agent.id, documentId: docs[0].document_id!, chunks: 6 });
    expect(readySuspects(e.model).map((d) => d.id)).toEqual([...suspect, docs[0].document_id!]);
    clearSuspects([docs[0].document_id!]); // (no await since the request: the check has not started)
    const [found] = await queryAgent(collection, agent.id, [ownVector], 5);
    expect(ids(found)[0]).toBe(chunkId(newest.document_id!, 0));
    expect(found[0].score).toBeLessThan(1e-4);

    // The check looks at the suspect chunks only, writes the lost ones from the app's copy and
    // stops suspecting them; the rebuild is left alone (no unclean exit was counted).
    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBe(before);
    const done = recheckState();
    expect(done).toMatchObject({ state: "idle", checked: 24, total: 24, still_unreachable: 0, unchecked_documents: 0 });
    expect(done.rewritten).toBe(6);
    expect(readySuspects(e.model)).toEqual([]);
    expect(await vectorsOf(agent.id, newest.document_id!)).toHaveLength(6);
    expect(rebuildState().last_finished_at).toBeNull();

    // The rest is checked in the background, paced, newest first: the six older documents.
    await expect.poll(() => recheckState().full, { timeout: 60_000 }).toMatchObject({ state: "idle", checked: 36, total: 36 });
    expect(recheckState().full.finished_at).not.toBeNull();

    // A full check takes up where it was (its place is in SQLite): here one that had got as far
    // as the fifth document, as an app restarted half-way would find it, checks the four below.
    startFullCheck(e.model, null);
    fullCheckAdvance(docs[4].document_id!, 36);
    const older = docs[0].document_id!;
    await deleteDocumentVectors(collection, agent.id, older);
    const looks = restartWatchLooks();
    watchChromaRestarts(100);
    await expect.poll(() => restartWatchLooks(), { timeout: 30_000 }).toBeGreaterThan(looks);
    await expect.poll(() => recheckState().full, { timeout: 60_000 }).toMatchObject({ state: "idle", checked: 36 + 24, total: 60 });
    expect(recheckState().full.rewritten).toBe(6);
    expect(
      (
        await agentVectors(
          collection,
          agent.id,
          Array.from({ length: 6 }, (_, k) => chunkId(older, k)),
        )
      ).length,
    ).toBe(6);

    // An unclean exit whose check finds nothing lost rebuilds nothing: the index is not copied
    // because of its size, only because of damage found (lib/index-upkeep/after-restart.test.ts).
    const last = recheckState().last_finished_at;
    const chromaDir = path.join(env().DATA_DIR, "chroma");
    fs.mkdirSync(chromaDir, { recursive: true });
    fs.writeFileSync(path.join(chromaDir, "unclean-restarts"), "1\n");
    await expect.poll(() => recheckState().last_finished_at, { timeout: 60_000 }).not.toBe(last);
    // The newest writes now include the first document, written again by the full check: it is
    // suspect besides the four newest, 30 chunks.
    expect(recheckState()).toMatchObject({ state: "idle", reason: "Chroma restarted after an unclean exit", checked: 30, rewritten: 0 });
    expect(rebuildState().last_finished_at).toBeNull();
    expect(fs.readFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), "utf8").trim()).toBe("1");
    useRecheckWindow(undefined);
  });
});
