import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { enc, ingest, newAgent, vectorsOf } from "@/test/helpers";
import { curationLog } from "@/lib/db/curation-log";
import { listDocuments } from "@/lib/db/documents";
import { chunkVectorsOf } from "@/lib/db/chunk-vectors";
import { chunkIndexes } from "@/lib/db/chunks";
import { embedder, useEmbedder } from "@/lib/embeddings/configured";
import { ingestFile } from "@/lib/ingest/pipeline";
import { keywordRanking } from "@/lib/retrieval/keyword";
import * as doc from "../../documents/[docId]/route";
import * as addChunk from "../../documents/[docId]/chunks/route";
import * as undo from "../../documents/[docId]/undo/route";
import * as carry from "../../documents/[docId]/carry/route";
import * as chunk from "./route";

// Four paragraphs, each its own chunk at 160 characters without overlap.
const ROUTER = [
  "Router reset. Hold the reset button on the back of the router for ten seconds until the lights blink amber.",
  "Firmware updates. The router checks for new firmware every night at two and installs it when nobody is online.",
  "Guest network. Turn on the guest network in the admin page under Wireless, then share the printed guest password.",
  "Footer. Copyright Example Networks. All rights reserved. Follow us for news and offers every week of the year.",
].join("\n\n");
const OTHER = "Billing. Invoices are issued on the first day of each billing period and can be downloaded as PDF.";

interface ChunkJson {
  id: number;
  index: number;
  text: string;
  enabled: boolean;
  edited: boolean;
  hand_written: boolean;
  questions: string[];
}
interface Hit {
  document_id: number;
  chunk_text: string;
  filename: string;
  score: number;
}

const getDoc = async (agent: string, docId: number) =>
  (await call(doc.GET, { method: "GET", params: { id: agent, docId: String(docId) } })).body;
const patch = (agent: string, chunkId: number, json: unknown) =>
  call(chunk.PATCH, { method: "PATCH", json, params: { id: agent, chunkId: String(chunkId) } });
const remove = (agent: string, chunkId: number) =>
  call(chunk.DELETE, { method: "DELETE", params: { id: agent, chunkId: String(chunkId) } });
const hits = async (agent: string, query: string, top_k = 10): Promise<Hit[]> =>
  (await call(search.POST, { json: { query, top_k }, params: { id: agent } })).body.results;

async function routerAgent(name: string) {
  const agent = String(newAgent(name).id);
  const router = await ingest(Number(agent), "router.md", ROUTER, 160, 0);
  await ingest(Number(agent), "billing.md", OTHER, 160, 0);
  const body = await getDoc(agent, router.document_id!);
  expect(body.chunks).toHaveLength(4);
  return { agent, docId: router.document_id!, chunks: body.chunks as ChunkJson[] };
}

/** The version's vectors in Chroma and in the exact copy, by chunk index: both must hold every indexed chunk, and only those. */
async function expectIndexesWhole(agent: string, docId: number) {
  const indexed = chunkIndexes([docId]);
  const inChroma = await vectorsOf(Number(agent), docId);
  expect(inChroma.map((v) => v.metadata?.chunk_index).sort()).toEqual(indexed.map((c) => c.chunk_index).sort());
  expect(chunkVectorsOf(indexed, embedder().model).size).toBe(indexed.length);
}

describe("chunk curation", () => {
  let agent: string;
  let docId: number;
  let chunks: ChunkJson[];
  beforeAll(async () => {
    ({ agent, docId, chunks } = await routerAgent("curation"));
  });

  it("lists each chunk with its id, text, and curation", async () => {
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    expect(chunks[0]).toMatchObject({
      text: expect.stringMatching(/^Router reset/),
      enabled: true,
      edited: false,
      hand_written: false,
      questions: [],
    });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(4);
  });

  it("edits a chunk's text: embedded again, marked edited, the same id, found by its new words in both indexes", async () => {
    const target = chunks[1];
    const text = "Firmware updates. The router installs new firmware on Sundays at three in the morning.";
    const res = await patch(agent, target.id, { text });
    expect(res.status).toBe(200);
    expect(res.body.changed).toBe(true);
    expect(res.body.document_id).not.toBe(docId);
    expect(res.body.chunk).toMatchObject({ id: target.id, text, edited: true });
    docId = res.body.document_id;
    // The old version is gone; the new one answers with the new text, and the old words no longer find it.
    expect((await getDoc(agent, docId)).chunks[1]).toMatchObject({ id: target.id, text, edited: true });
    const found = await hits(agent, "when does the router install firmware on Sundays", 1);
    expect(found[0]).toMatchObject({ document_id: docId, chunk_text: text });
    expect((await hits(agent, "every night at two", 10)).some((h) => h.chunk_text.includes("every night at two"))).toBe(false);
    await expectIndexesWhole(agent, docId);
    // Written back to the chunker's text, it is no longer edited.
    const back = await patch(agent, target.id, { text: target.text });
    expect(back.body.chunk).toMatchObject({ edited: false, text: target.text });
    docId = back.body.document_id;
  });

  it("embeds only what changed: the edited chunk, none of the others", async () => {
    const real = embedder();
    const embedded: string[] = [];
    // The configured embedder, its embed calls counted.
    const spy = Object.create(real) as typeof real;
    spy.embed = (texts: string[]) => (embedded.push(...texts), real.embed(texts));
    useEmbedder(spy);
    try {
      const res = await patch(agent, chunks[1].id, { text: "Firmware updates. The router updates itself on Sundays." });
      expect(res.status).toBe(200);
      docId = res.body.document_id;
      expect(embedded).toEqual(["Firmware updates. The router updates itself on Sundays."]);
      const back = await patch(agent, chunks[1].id, { text: chunks[1].text });
      docId = back.body.document_id;
    } finally {
      useEmbedder(real);
    }
    await expectIndexesWhole(agent, docId);
  });

  it("a change whose embedding fails changes nothing, and the chunk can be changed again", async () => {
    const real = embedder();
    const failing = Object.create(real) as typeof real;
    failing.embed = () => Promise.reject(new Error("the embedder is down"));
    useEmbedder(failing);
    let failed;
    try {
      failed = await patch(agent, chunks[2].id, { text: "Guest network. This change never lands." });
    } finally {
      useEmbedder(real);
    }
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((await getDoc(agent, docId)).chunks[2].text).toBe(chunks[2].text);
    const again = await patch(agent, chunks[2].id, { questions: ["guest wifi"] });
    expect(again.status).toBe(200);
    docId = again.body.document_id;
    expect(again.body.chunk).toMatchObject({ id: chunks[2].id, text: chunks[2].text, questions: ["guest wifi"] });
    const cleared = await patch(agent, chunks[2].id, { questions: [] });
    docId = cleared.body.document_id;
  });

  it("indexes a chunk's questions with it, so a question worded like the user's finds it; the result is the chunk's own text", async () => {
    const target = chunks[2];
    const question = "how can visitors get wifi access";
    const scoreOf = (list: Hit[]) => list.find((h) => h.chunk_text === target.text)?.score ?? Infinity;
    const before = scoreOf(await hits(agent, question, 10));
    const res = await patch(agent, target.id, { questions: [question, "wifi for visitors"] });
    expect(res.status).toBe(200);
    docId = res.body.document_id;
    expect(res.body.chunk.questions).toEqual([question, "wifi for visitors"]);
    const after = await hits(agent, question, 4);
    expect(after[0].chunk_text).toBe(target.text);
    expect(after[0].score).toBeLessThan(before);
    // The keyword side: a word only the questions hold finds the chunk in keyword mode.
    const keyword = keywordRanking(Number(agent), embedder().model, "visitors", 3);
    expect(keyword.map((h) => [h.document_id, h.chunk_index])).toEqual([[docId, res.body.chunk.position]]);
    await expectIndexesWhole(agent, docId);
  });

  it("switches a chunk off: kept and listed, never retrieved; switched on, it is back", async () => {
    const target = chunks[3];
    const res = await patch(agent, target.id, { enabled: false });
    docId = res.body.document_id;
    expect(res.body.chunk).toMatchObject({ id: target.id, enabled: false });
    const everything = await hits(agent, "copyright all rights reserved follow us", 100);
    expect(everything.some((h) => h.chunk_text === target.text)).toBe(false);
    expect(everything.length).toBe(4); // the other three chunks of router.md and billing.md's one
    await expectIndexesWhole(agent, docId);
    expect(chunkIndexes([docId])).toHaveLength(3);
    const on = await patch(agent, target.id, { enabled: true });
    docId = on.body.document_id;
    expect((await hits(agent, "copyright all rights reserved follow us", 1))[0].chunk_text).toBe(target.text);
  });

  it("adds a chunk by hand after another, deletes one, and undoes the last change", async () => {
    const text = "Parental controls. Block sites for the kids' devices in the admin page under Family.";
    const added = await call(addChunk.POST, { json: { text, after: chunks[0].id }, params: { id: agent, docId: String(docId) } });
    expect(added.status).toBe(201);
    expect(added.body.chunk).toMatchObject({ text, hand_written: true, enabled: true });
    docId = added.body.document_id;
    const listed: ChunkJson[] = (await getDoc(agent, docId)).chunks;
    expect(listed.map((c) => c.text)).toEqual([chunks[0].text, text, chunks[1].text, chunks[2].text, chunks[3].text]);
    expect((await hits(agent, "block sites for the kids", 1))[0].chunk_text).toBe(text);

    const gone = await remove(agent, chunks[0].id);
    expect(gone.status).toBe(200);
    docId = gone.body.document_id;
    expect((await hits(agent, "hold the reset button", 10)).some((h) => h.chunk_text === chunks[0].text)).toBe(false);
    const undone = await call(undo.POST, { params: { id: agent, docId: String(docId) } });
    expect(undone.status).toBe(200);
    docId = undone.body.document_id;
    expect(undone.body.chunks.map((c: ChunkJson) => c.id)).toContain(chunks[0].id);
    expect((await hits(agent, "hold the reset button", 1))[0].chunk_text).toBe(chunks[0].text);
    await expectIndexesWhole(agent, docId);
  });

  it("switches a whole document off and on", async () => {
    const off = await call(doc.PATCH, { method: "PATCH", json: { enabled: false }, params: { id: agent, docId: String(docId) } });
    expect(off.status).toBe(200);
    docId = off.body.document_id;
    expect((await getDoc(agent, docId)).enabled).toBe(false);
    expect((await hits(agent, "router", 100)).every((h) => h.filename === "billing.md")).toBe(true);
    expect(await vectorsOf(Number(agent), docId)).toEqual([]);
    const on = await call(doc.PATCH, { method: "PATCH", json: { enabled: true }, params: { id: agent, docId: String(docId) } });
    docId = on.body.document_id;
    expect((await hits(agent, "router reset button", 1))[0].filename).toBe("router.md");
    await expectIndexesWhole(agent, docId);
  });

  it("logs every change with what it did", () => {
    const log = curationLog(Number(agent), "router.md");
    expect(log.map((e) => e.action)).toEqual(
      expect.arrayContaining(["change chunk", "add chunk", "delete chunk", "undo", "switch document off", "switch document on"]),
    );
    expect(log[0]).toMatchObject({ action: "switch document on", document_id: docId, actor: "browser" });
  });
});

describe("parallel chunk changes", () => {
  it("each applies to the version that holds the chunk when its turn comes: none is lost, one version is served (3 trials)", async () => {
    for (let trial = 0; trial < 3; trial++) {
      const { agent, chunks } = await routerAgent(`curation race ${trial}`);
      const results = await Promise.all([
        patch(agent, chunks[0].id, { questions: ["factory reset"] }),
        patch(agent, chunks[1].id, { text: "Firmware updates. The router updates itself on Sundays." }),
        patch(agent, chunks[3].id, { enabled: false }),
        remove(agent, chunks[2].id),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const ready = listDocuments(Number(agent)).filter((d) => d.filename === "router.md");
      expect(ready.map((d) => d.status)).toEqual(["ready"]);
      const final: ChunkJson[] = (await getDoc(agent, ready[0].id)).chunks;
      expect(final.map((c) => [c.id, c.enabled, c.edited, c.questions])).toEqual([
        [chunks[0].id, true, false, ["factory reset"]],
        [chunks[1].id, true, true, []],
        [chunks[3].id, false, false, []],
      ]);
      await expectIndexesWhole(agent, ready[0].id);
    }
  });
});

describe("bad curation input", () => {
  let agent: string;
  let docId: number;
  let chunks: ChunkJson[];
  beforeAll(async () => {
    ({ agent, docId, chunks } = await routerAgent("curation errors"));
  });

  it("answers 404 for an unknown chunk or a chunk of another agent, changing nothing", async () => {
    expect((await patch(agent, 999_999_999, { enabled: false })).status).toBe(404);
    const other = String(newAgent("other").id);
    const res = await patch(other, chunks[0].id, { enabled: false });
    expect(res.status).toBe(404);
    expect((await remove(other, chunks[0].id)).status).toBe(404);
    expect((await call(addChunk.POST, { json: { text: "x" }, params: { id: other, docId: String(docId) } })).status).toBe(404);
    expect((await getDoc(agent, docId)).chunks.every((c: ChunkJson) => c.enabled)).toBe(true);
  });

  it("answers 422 naming the field for an empty text, a question over the limit, an unknown field or no change at all", async () => {
    const cases: [unknown, RegExp][] = [
      [{ text: "   " }, /^text: text must not be empty/],
      [{ questions: ["x".repeat(2001)] }, /^questions\.0: a question must be at most 2,000 characters/],
      [{ questions: "one" }, /^questions: questions must be a list/],
      [{ enabled: "no" }, /^enabled: enabled must be true or false/],
      [{ colour: "red" }, /Unknown field: colour/],
      [{}, /Give at least one of text, enabled or questions/],
    ];
    for (const [json, message] of cases) {
      const res = await patch(agent, chunks[0].id, json);
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(res.body.error.message).toMatch(message);
    }
    const long = await call(addChunk.POST, { json: { text: "y".repeat(100_001) }, params: { id: agent, docId: String(docId) } });
    expect(long.status).toBe(422);
    expect(long.body.error.message).toMatch(/^text: /);
    expect((await getDoc(agent, docId)).id).toBe(docId); // nothing was written: still the same version
  });

  it("answers 409 for a version that was replaced meanwhile, naming the newer one", async () => {
    const res = await patch(agent, chunks[0].id, { enabled: false });
    const stale = await call(addChunk.POST, { json: { text: "late" }, params: { id: agent, docId: String(docId) } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toContain(`document ${res.body.document_id}`);
  });
});

describe("curation when a document is re-chunked or replaced", () => {
  it("carries questions to the chunk that now holds the same sentence, keeps an edit as a note when its text is gone, and previews it first", async () => {
    const { agent, docId, chunks } = await routerAgent("carry");
    let current = (await patch(agent, chunks[2].id, { questions: ["wifi for visitors"] })).body.document_id;
    current = (await patch(agent, chunks[1].id, { text: "Firmware is installed on Sundays." })).body.document_id;
    current = (await patch(agent, chunks[3].id, { enabled: false })).body.document_id;
    expect(current).not.toBe(docId);

    // At 300 characters the paragraphs pair up: no chunk holds the edited one's text alone any more.
    const preview = await call(carry.GET, {
      method: "GET",
      params: { id: agent, docId: String(current) },
      url: "?chunk_size=300&chunk_overlap=0",
    });
    expect(preview.status).toBe(200);
    expect(preview.body.curated).toBe(true);
    expect(preview.body.notes.join("\n")).toMatch(/was edited.*Firmware is installed on Sundays/);

    const res = await call(doc.PATCH, {
      method: "PATCH",
      json: { chunk_size: 300, chunk_overlap: 0 },
      params: { id: agent, docId: String(current) },
    });
    expect(res.status).toBe(200);
    const result = res.body.document;
    expect(result.curation.notes).toEqual(preview.body.notes);
    expect(result.curation.carried).toEqual(preview.body.carried);
    const after = await getDoc(agent, result.document_id);
    expect(after.curation_note).toMatch(/Firmware is installed on Sundays/);
    const guest = (after.chunks as ChunkJson[]).find((c) => c.text.includes("Guest network"))!;
    expect(guest.questions).toEqual(["wifi for visitors"]);
    expect((await hits(agent, "wifi for visitors", 1))[0].chunk_text).toBe(guest.text);
  });

  it("keeps edits, switch-offs and questions of chunks whose text a replacing upload keeps", async () => {
    const { agent, chunks } = await routerAgent("replace");
    await patch(agent, chunks[3].id, { enabled: false });
    await patch(agent, chunks[0].id, { questions: ["factory reset"] });
    const updated = ROUTER.replace("Guest network. Turn on", "Guest network. Switch on");
    const replaced = await ingestFile(Number(agent), { filename: "router.md", bytes: enc(updated) }, { chunkSize: 160, chunkOverlap: 0 });
    expect(replaced.outcome).toBe("replaced");
    expect(replaced.curation?.notes).toEqual([]);
    const after: ChunkJson[] = (await getDoc(agent, replaced.document_id!)).chunks;
    expect(after.map((c) => [c.id === chunks[0].id, c.enabled, c.questions])).toEqual([
      [true, true, ["factory reset"]],
      [false, true, []],
      [false, true, []],
      [false, false, []],
    ]);
    expect(after[3].id).toBe(chunks[3].id);
    expect((await hits(agent, "copyright all rights reserved", 100)).some((h) => h.chunk_text.startsWith("Footer"))).toBe(false);
  });
});
