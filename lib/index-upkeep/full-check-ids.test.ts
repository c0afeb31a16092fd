import { afterEach, describe, expect, it } from "vitest";
import { listDocuments } from "../db/documents";
import { startFullCheck } from "../db/index-check";
import { chunkId } from "../vector-store/client";
import { agentVectors } from "../vector-store/chunks";
import { ingest, newAgent, sparseCollection } from "../../test/helpers";
import { recheckState, stopWatchingChromaRestarts, watchChromaRestarts } from "./after-restart";

// The paced full check asks each chunk's own vector over the whole collection, and the chunks
// that query does not return again filtered to their agent: by the agent's ready chunk ids, the
// list its searches send, never by a `where` (which costs Chroma a pass over every record's
// metadata, about a second a request at 1,000,000 vectors). A graph of 2 neighbours per node and
// ef 1 misses many chunks unfiltered, so filtered questions are asked. The query bodies are read
// where every Chroma call goes out (the global fetch).
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
  stopWatchingChromaRestarts();
});

const TOPICS = ["refund", "invoice", "password", "shipping", "warranty", "coupon"];
const article = (topic: string) =>
  Array.from({ length: 6 }, (_, p) => `Part ${p} on the ${topic} desk: who to ask about a ${topic}, case ${p}.`).join("\n\n");
const readyIds = (agentId: number) =>
  listDocuments(agentId)
    .filter((d) => d.status === "ready")
    .flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));

describe("the full check after a crash", () => {
  it("asks its filtered questions by the agent's own ready chunk ids, and writes back a chunk Chroma lost in a step of more than 200", async () => {
    const { e, collection } = await sparseCollection();
    const agents = [newAgent("full ids"), newAgent("full ids other")];
    // 300 chunks of 20 characters in one document, and a few articles beside it in both agents:
    // more than the 200 chunks a step of the check used to hold.
    const notes = Array.from({ length: 300 }, (_, i) => `note ${String(i).padStart(4, "0")} kept.`.padEnd(20, " ")).join("");
    const big = await ingest(agents[0].id, "notes.txt", notes, 20, 0, "fixed");
    expect(big.chunk_count).toBe(300);
    for (const [i, topic] of TOPICS.entries()) await ingest(agents[i % 2].id, `${topic}.md`, article(topic), 100, 0);

    // A write the crash cut off: Chroma no longer holds one chunk in the middle of the notes.
    const lost = chunkId(big.document_id!, 250);
    await collection.delete({ ids: [lost], where: { agent_id: agents[0].id } });
    expect(await agentVectors(collection, agents[0].id, [lost])).toEqual([]);

    const asked: { ids: string[] | null; where: unknown }[] = [];
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith("/query")) {
        // The chromadb client sends a Request, the app's own REST calls a body.
        const text = input instanceof Request ? await input.clone().text() : String(init?.body);
        const body = JSON.parse(text) as { ids?: string[]; where?: unknown };
        asked.push({ ids: body.ids ?? null, where: body.where ?? null });
      }
      return realFetch(input, init);
    };
    startFullCheck(e.model, null);
    watchChromaRestarts(50);
    const total = readyIds(agents[0].id).length + readyIds(agents[1].id).length;
    await expect.poll(() => recheckState().full, { timeout: 60_000 }).toMatchObject({ state: "idle", checked: total, total });

    // The lost chunk is written again from the app's copy.
    expect(recheckState().full.rewritten).toBeGreaterThanOrEqual(1);
    expect((await agentVectors(collection, agents[0].id, [lost])).map((v) => v.id)).toEqual([lost]);
    // Every question went either to the whole collection (own vectors, of which only the ids asked
    // about are kept) or to one agent's ready chunks by their ids; none by a `where`.
    expect(asked.some((q) => q.ids === null)).toBe(true);
    expect(asked.filter((q) => q.where !== null)).toEqual([]);
    const filtered = asked.filter((q) => q.ids !== null);
    expect(filtered.length).toBeGreaterThan(0);
    const lists = agents.map((a) => [...readyIds(a.id)].sort());
    for (const q of filtered) expect(lists).toContainEqual([...q.ids!].sort());
  }, 120_000);
});
