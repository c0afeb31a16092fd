import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { call, LOCAL_PEER } from "@/test/http";
import { ARTICLES, ingest, newAgent, undeletedCleanups, vectorsOf } from "@/test/helpers";
import { findAgentByName, listAgents, updateAgent, type Agent } from "@/lib/db/agents";
import { findDocument, listDocuments } from "@/lib/db/documents";
import { addChunk, changeChunk, documentCuration } from "@/lib/ingest/curate";
import { storedChunks } from "@/lib/db/chunks";
import { readVectorRuns } from "@/lib/db/chunk-vectors";
import { createPair, listPairs } from "@/lib/db/pairs";
import { listRuns, runResults } from "@/lib/db/eval-runs";
import { db } from "@/lib/db/client";
import { rechunkDocument } from "@/lib/ingest/pipeline";
import { evaluate } from "@/lib/evaluation/run";
import { retrieve } from "@/lib/retrieval/retrieve";
import { embedder } from "@/lib/embeddings/configured";
import { collectionFor } from "@/lib/vector-store/client";
import { requiredRole } from "@/lib/auth/request-rules";
import { importAgent } from "@/lib/transfer/import";
import * as importRoute from "./agents/import/route";
import * as exportRoute from "./agents/[id]/export/route";

const HANDBOOK = [
  "Shipping. Orders placed before noon ship the same business day from the nearest warehouse.",
  "International orders clear customs in two to five days; duties are shown at checkout.",
  "Returns. Unused items can be returned within 60 days with the prepaid label from the order page.",
  "Exchanges for another size are free and ship as soon as the returned item is scanned.",
  "Accounts. Two-factor authentication can be turned on under security settings with any authenticator app.",
  "Deleting an account removes order history after 30 days; invoices stay available to the billing contact.",
  "Gift cards never expire and can be combined with one promotional code per order.",
].join("\n\n");

const QUERIES = [
  "how long does a refund take",
  "first response time for premium customers",
  "reset my password",
  "return an unused item",
  "download invoices as PDF",
  "do gift cards expire",
];

let original: Agent;
let other: Agent;
let file: string;

async function exported(agentId: number) {
  const res = await exportRoute.GET(new Request("http://localhost/test", { headers: LOCAL_PEER }), {
    params: Promise.resolve({ id: String(agentId) }),
  });
  return { res, text: await res.text() };
}

/** The import route, with the body streamed in small pieces so lines arrive split across chunks. */
async function importFile(text: string, name?: string) {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 997) controller.enqueue(bytes.slice(i, i + 997));
      controller.close();
    },
  });
  const url = `http://localhost/test${name ? `?name=${encodeURIComponent(name)}` : ""}`;
  const req = new Request(url, {
    method: "POST",
    headers: { ...LOCAL_PEER, "content-type": "application/x-ndjson" },
    body,
    duplex: "half",
  } as RequestInit);
  const res = await importRoute.POST(req, { params: Promise.resolve({}) });
  return { status: res.status, body: await res.json() };
}

const lines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

/** The file with its end line's checksum made right again after an edit. */
function resealed(text: string): string {
  const body = text
    .trimEnd()
    .split("\n")
    .slice(0, -1)
    .map((l) => `${l}\n`)
    .join("");
  const end = lines(text).at(-1);
  return `${body}${JSON.stringify({ ...end, sha256: createHash("sha256").update(body).digest("hex") })}\n`;
}

const agentSeq = () => (db().prepare("SELECT seq FROM sqlite_sequence WHERE name = 'agents'").get() as { seq: number }).seq;

async function chromaCount(agentId: number) {
  return (await (await collectionFor(embedder())).get({ where: { agent_id: agentId }, include: [] })).ids.length;
}

/** Runs an import that must fail and checks that it left nothing behind: no agent, document or vector. */
async function refusedLeavingNothing(run: () => Promise<{ status: number; body: { error: { code: string; message: string } } }>) {
  const before = agentSeq();
  const agents = listAgents().length;
  const res = await run();
  const created = agentSeq();
  for (let id = before + 1; id <= created; id++) {
    expect(db().prepare("SELECT COUNT(*) AS n FROM documents WHERE agent_id = ?").get(id)).toEqual({ n: 0 });
    expect(await chromaCount(id)).toBe(0);
    expect(undeletedCleanups(id)).toEqual([]);
  }
  expect(listAgents().length).toBe(agents);
  return { ...res, created: created > before };
}

const ranked = async (agentId: number) =>
  (await retrieve(agentId, QUERIES, { topK: 6 })).map((hits) =>
    hits.map((h) => ({ filename: h.filename, chunk_index: h.chunk_index, score: h.score })),
  );

beforeAll(async () => {
  original = newAgent("Transfer source");
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(original.id, `${name}.md`, text);
  await ingest(original.id, "handbook.md", HANDBOOK, 300, 50);
  // Two documents re-chunked with settings of their own.
  const byName = new Map(listDocuments(original.id).map((d) => [d.filename, d.id]));
  expect(
    (await rechunkDocument(original.id, byName.get("handbook.md")!, { chunkSize: 200, chunkOverlap: 20, chunkStrategy: "fixed" })).status,
  ).toBe("ready");
  expect((await rechunkDocument(original.id, byName.get("refunds.md")!, { chunkSize: 80, chunkOverlap: 10 })).status).toBe("ready");
  updateAgent(original.id, { log_questions: false, cut: { maxDistance: 1.5, model: embedder().model } });
  createPair(original.id, { query: "how long does a refund take", expected_filename: "refunds.md", source: "manual" });
  createPair(original.id, { query: "premium response time", expected_filename: "sla.md", source: "import", note: "from the CSV" });
  createPair(original.id, { query: "forgot password", expected_filename: "password.md", source: "log" });
  createPair(original.id, { query: "can I exchange for another size", expected_filename: "handbook.md", source: "generated" });
  createPair(original.id, { query: "where are invoices", expected_filename: "invoices.md", source: "generated", status: "proposed" });
  createPair(original.id, { query: "turn on two-factor authentication", expected_filename: "handbook.md", source: "manual" });
  createPair(original.id, { query: "what is the weather on mars", expected_filename: "", source: "manual" });
  expect((await evaluate(original.id, 5)).status).toBe("done");

  other = newAgent("Transfer other tenant");
  await ingest(other.id, "zebra-secrets.md", "Zebrafish husbandry notes: the quokka tank is cleaned every Tuesday.");
  createPair(other.id, { query: "quokka tank cleaning", expected_filename: "zebra-secrets.md" });
  await evaluate(other.id, 3);

  const { res, text } = await exported(original.id);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/x-ndjson");
  expect(res.headers.get("content-disposition")).toBe(
    `attachment; filename="${original.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.kb-agent.ndjson"`,
  );
  file = text;
});

describe("agent export and import", () => {
  it("writes the agent, its ready documents with chunks and vectors, pairs, runs, and a sealed end line", () => {
    const all = lines(file);
    expect(all[0]).toMatchObject({
      type: "agent",
      format: "kb-inspector-agent",
      version: 1,
      embedding_model: embedder().model,
      dimension: embedder().dimension,
    });
    expect(all[0].agent).toMatchObject({
      name: original.name,
      tools: ["document_search"],
      retrieval_mode: "vector",
      max_distance: 1.5,
      log_questions: false,
    });
    expect(all.map((l) => l.type).filter((t, i, a) => t !== a[i - 1])).toEqual([
      "agent",
      "document",
      "vectors",
      "document",
      "vectors",
      "document",
      "vectors",
      "document",
      "vectors",
      "document",
      "vectors",
      "pair",
      "run",
      "end",
    ]);
    const docs = all.filter((l) => l.type === "document");
    expect(docs.map((d) => d.document.filename).sort()).toEqual(["handbook.md", "invoices.md", "password.md", "refunds.md", "sla.md"]);
    expect(docs.find((d) => d.document.filename === "handbook.md")).toMatchObject({
      document: { chunk_size: 200, chunk_overlap: 20, chunk_strategy: "fixed" },
      vectors: true,
    });
    const counts = { documents: 5, chunks: docs.reduce((n, d) => n + d.chunks.length, 0), pairs: 7, runs: 1 };
    expect(all.at(-1)).toMatchObject({ type: "end", counts });
    expect(all[0].counts).toEqual(counts);
    const body = file.slice(0, file.lastIndexOf("\n", file.length - 2) + 1);
    expect(all.at(-1).sha256).toBe(createHash("sha256").update(body).digest("hex"));
    expect(all.filter((l) => l.type === "run")[0].results).toHaveLength(6);
  });

  it("exports nothing of another agent", () => {
    expect(file).not.toMatch(/zebra|quokka|Zebrafish/i);
    expect(file).not.toContain(other.name);
  });

  it("imports under a new name and reproduces documents, chunks, vectors, rankings and evaluation figures exactly", async () => {
    const name = `${original.name} copy`;
    const res = await importFile(file, name);
    expect(res.status).toBe(201);
    const copy = findAgentByName(name)!;
    const sourceDocs = listDocuments(original.id).sort((a, b) => a.id - b.id);
    const copyDocs = listDocuments(copy.id).sort((a, b) => a.id - b.id);
    const chunkCount = sourceDocs.reduce((n, d) => n + d.chunk_count, 0);
    expect(res.body).toEqual({
      agent: expect.objectContaining({ id: copy.id, name }),
      documents: 5,
      chunks: chunkCount,
      pairs: 7,
      runs: 1,
      re_embedded: false,
    });
    expect(copy).toMatchObject({
      tools: ["document_search"],
      retrieval_mode: "vector",
      max_distance: 1.5,
      max_distance_model: embedder().model,
      log_questions: false,
    });

    const settings = (d: (typeof sourceDocs)[number]) => [
      d.filename,
      d.type,
      d.sha256,
      d.bytes,
      d.chunk_size,
      d.chunk_overlap,
      d.chunk_strategy,
      d.chunk_count,
      d.status,
      d.created_at,
    ];
    expect(copyDocs.map(settings)).toEqual(sourceDocs.map(settings));
    for (const [i, doc] of copyDocs.entries()) {
      const source = sourceDocs[i];
      expect(storedChunks(doc.id)).toEqual(storedChunks(source.id));
      // The exact copy bit for bit, and Chroma's vectors with the ingest's ids and metadata.
      const bytes = (id: number) =>
        Buffer.concat(
          readVectorRuns([id], embedder().model).map((r) => Buffer.from(r.vectors.buffer, r.vectors.byteOffset, r.vectors.byteLength)),
        );
      expect(bytes(doc.id).equals(bytes(source.id))).toBe(true);
      const vectors = await vectorsOf(copy.id, doc.id);
      expect(vectors.map((v) => v.id).sort()).toEqual(
        storedChunks(doc.id)
          .map((c) => `doc${doc.id}#${c.index}`)
          .sort(),
      );
      expect(vectors[0].metadata).toEqual({ agent_id: copy.id, document_id: doc.id, chunk_index: expect.any(Number) });
    }

    const before = await ranked(original.id);
    const after = await ranked(copy.id);
    expect(after.map((hits) => hits.map((h) => [h.filename, h.chunk_index]))).toEqual(
      before.map((hits) => hits.map((h) => [h.filename, h.chunk_index])),
    );
    after.forEach((hits, q) => hits.forEach((h, i) => expect(Math.abs(h.score - before[q][i].score)).toBeLessThan(1e-6)));

    const pairKey = (p: { query: string; expected_filename: string; note: string | null; source: string; status: string }) => [
      p.query,
      p.expected_filename,
      p.note,
      p.source,
      p.status,
    ];
    expect(listPairs(copy.id).map(pairKey)).toEqual(listPairs(original.id).map(pairKey));

    // The history came along, and a new run over the imported pairs gives the same figures.
    const [sourceRun] = listRuns(original.id);
    const [historic] = listRuns(copy.id);
    expect(historic).toMatchObject({
      status: "done",
      k: 5,
      recall_at_k: sourceRun.recall_at_k,
      mrr: sourceRun.mrr,
      created_at: sourceRun.created_at,
      chunk_settings: sourceRun.chunk_settings,
    });
    const resultKey = (r: { query: string; expected: string; rank: number | null; best_distance: number | null }) => [
      r.query,
      r.expected,
      r.rank,
      r.best_distance,
    ];
    expect(runResults(historic.id).map(resultKey)).toEqual(runResults(sourceRun.id).map(resultKey));
    expect(runResults(historic.id).find((r) => r.expected === "handbook.md")?.document_id).toBe(
      copyDocs.find((d) => d.filename === "handbook.md")!.id,
    );

    const rerun = await evaluate(original.id, 5);
    const imported = await evaluate(copy.id, 5);
    expect(Object.keys(imported.recall_at_k!)).toHaveLength(20);
    expect(imported.recall_at_k).toEqual(rerun.recall_at_k);
    expect(imported.mrr).toBe(rerun.mrr);
    expect(imported.recall_at_k).toEqual(sourceRun.recall_at_k);
  });

  it("refuses a name that exists with 409, before writing anything", async () => {
    const res = await refusedLeavingNothing(() => importFile(file));
    expect(res).toMatchObject({ status: 409, created: false, body: { error: { code: "conflict" } } });
    expect(res.body.error.message).toMatch(/already exists.*\?name=/);
  });

  it("refuses a file cut short, altered or with a bad header with 422 naming the line, and removes what it wrote", async () => {
    const all = file.trimEnd().split("\n");
    const firstPair = all.findIndex((l) => l.includes('"type":"pair"'));
    const cut = await refusedLeavingNothing(() => importFile(`${all.slice(0, firstPair + 2).join("\n")}\n`, "cut short"));
    expect(cut).toMatchObject({ status: 422, created: true, body: { error: { code: "invalid_request" } } });
    expect(cut.body.error.message).toBe(`The agent file ends at line ${firstPair + 2} without its end line: it was cut short.`);

    const midLine = await refusedLeavingNothing(() => importFile(file.slice(0, file.indexOf('"type":"vectors"') + 300), "cut mid-line"));
    expect(midLine).toMatchObject({
      status: 422,
      body: { error: { message: expect.stringMatching(/^Line 3 of the agent file: it is not valid JSON/) } },
    });

    const altered = await refusedLeavingNothing(() =>
      importFile(file.replace("A full refund is available within 30 days", "A full refund is available within 90 days"), "altered"),
    );
    expect(altered).toMatchObject({ status: 422, created: true });
    expect(altered.body.error.message).toMatch(new RegExp(`^Line ${all.length} of the agent file: the end line's SHA-256 does not match`));

    const miscounted = resealed(
      file.replace(/"counts":\{"documents":5/g, (m, at: number) => (at > file.length - 500 ? '"counts":{"documents":4' : m)),
    );
    expect((await refusedLeavingNothing(() => importFile(miscounted, "miscounted"))).body.error.message).toMatch(
      /the end line counts 4 documents.*the file holds 5 documents/,
    );

    const newer = await refusedLeavingNothing(() => importFile(file.replace('"version":1', '"version":2'), "newer"));
    expect(newer).toMatchObject({
      status: 422,
      created: false,
      body: { error: { message: "Line 1 of the agent file: the file is of version 2; this app reads version 1." } },
    });
    const notOurs = await refusedLeavingNothing(() => importFile('{"type":"agent","format":"something-else"}\n', "not ours"));
    expect(notOurs).toMatchObject({
      status: 422,
      created: false,
      body: { error: { message: expect.stringMatching(/^Line 1 .*not an agent file/) } },
    });
    expect((await refusedLeavingNothing(() => importFile("", "empty"))).body.error.message).toBe("The agent file is empty.");
  });

  it("refuses a line over the cap with 413 naming it, and removes what it wrote", async () => {
    // The cap just fits every line before the file's longest one.
    const sizes = file
      .trimEnd()
      .split("\n")
      .map((l) => Buffer.byteLength(l));
    const longest = sizes.indexOf(Math.max(...sizes));
    const cap = Math.max(...sizes.slice(0, longest));
    expect(longest).toBeGreaterThan(1);
    const res = await refusedLeavingNothing(async () => {
      try {
        await importAgent(new Blob([file]).stream(), { name: "capped", maxLineBytes: cap });
        return { status: 201, body: { error: { code: "", message: "" } } };
      } catch (err) {
        const e = err as { status: number; code: string; message: string };
        return { status: e.status, body: { error: { code: e.code, message: e.message } } };
      }
    });
    expect(res).toMatchObject({
      status: 413,
      created: true,
      body: {
        error: {
          code: "request_too_large",
          message: expect.stringMatching(new RegExp(`^Line ${longest + 1} of the agent file is longer than`)),
        },
      },
    });
  });

  it("re-embeds the documents when the file's model is another one", async () => {
    const foreign = resealed(
      file.replace(`"embedding_model":"${embedder().model}","dimension"`, '"embedding_model":"text-embedding-3-small","dimension"'),
    );
    expect(lines(foreign)[0].embedding_model).toBe("text-embedding-3-small");
    const res = await importFile(foreign, "Re-embedded copy");
    expect(res).toMatchObject({ status: 201, body: { documents: 5, pairs: 7, runs: 1, re_embedded: true } });
    const copy = findAgentByName("Re-embedded copy")!;
    const docs = listDocuments(copy.id);
    expect(docs.every((d) => d.status === "ready" && d.embedding_model === embedder().model)).toBe(true);
    expect(docs.find((d) => d.filename === "handbook.md")).toMatchObject({ chunk_size: 200, chunk_overlap: 20, chunk_strategy: "fixed" });
    const [hits] = await retrieve(copy.id, ["how long does a refund take"], { topK: 3 });
    expect(hits[0].filename).toBe("refunds.md");
    expect(await chromaCount(copy.id)).toBe(docs.reduce((n, d) => n + d.chunk_count, 0));
  });

  it("carries a curated document's chunks, edits, switch-offs, questions and hand-written chunks", async () => {
    const source = newAgent("curated export");
    const doc = await ingest(
      source.id,
      "router.md",
      "Router reset. Hold the button for ten seconds.\n\nFooter. All rights reserved.",
      60,
      0,
    );
    const [first, footer] = documentCuration(findDocument(source.id, doc.document_id!)!).chunks;
    let id = (
      await changeChunk(source.id, first.id, { text: "Router reset. Hold the button with a pin.", questions: ["factory reset"] }, null)
    ).document_id;
    id = (await changeChunk(source.id, footer.id, { enabled: false }, null)).document_id;
    id = (await addChunk(source.id, id, { text: "Written by hand: call us for help.", after: first.id }, null)).document_id;
    const before = documentCuration(findDocument(source.id, id)!).chunks.map(({ id: _id, start: _s, end: _e, ...c }) => c);

    const { text } = await exported(source.id);
    const docLine = lines(text).find((l) => l.type === "document")!;
    expect(docLine).toMatchObject({ chunks: [], vectors: false, curation: { enabled: true } });
    const res = await importFile(text, `Curated copy ${source.id}`);
    expect(res.status).toBe(201);
    const copy = findAgentByName(`Curated copy ${source.id}`)!;
    const [copied] = listDocuments(copy.id);
    const after = documentCuration(findDocument(copy.id, copied.id)!).chunks.map(({ id: _id, start: _s, end: _e, ...c }) => c);
    expect(after).toEqual(before);
    expect(after.map((c) => [c.edited, c.hand_written, c.enabled])).toEqual([
      [true, false, true],
      [false, true, true],
      [false, false, false],
    ]);
    const [hits] = await retrieve(copy.id, ["factory reset"], { topK: 1 });
    expect(hits[0].chunk_text).toBe("Router reset. Hold the button with a pin.");
    expect(await chromaCount(copy.id)).toBe(2);

    // A curation listing chunks as well, or a chunk outside the text, is refused naming the line.
    const both = text.replace('"chunks":[],', '"chunks":[{"index":0,"start":0,"end":10}],');
    expect(await importFile(both, `Curated bad ${source.id}`)).toMatchObject({ status: 422 });
    expect(findAgentByName(`Curated bad ${source.id}`)).toBeUndefined();
  });

  it("streams the export line by line", async () => {
    const res = await exportRoute.GET(new Request("http://localhost/test", { headers: LOCAL_PEER }), {
      params: Promise.resolve({ id: String(original.id) }),
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The first piece is the agent line alone: the rest is read as the client takes it.
    expect(first.indexOf("\n")).toBe(first.length - 1);
    expect(JSON.parse(first)).toMatchObject({ type: "agent", agent: { name: original.name } });
    await reader.cancel();
  });

  it("gates the import itself, since the proxy leaves its path out", async () => {
    const before = agentSeq();
    const res = await importRoute.POST(new Request("http://localhost/test?name=ungated", { method: "POST", body: file }), {
      params: Promise.resolve({}),
    });
    // No peer stamp: the gate answers before a byte of the body is read.
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("starting");
    expect(agentSeq()).toBe(before);
  });

  it("lets a viewer export and only an editor import", () => {
    expect(requiredRole("GET", "/api/agents/3/export", false)).toBe("viewer");
    expect(requiredRole("POST", "/api/agents/import", false)).toBe("editor");
  });

  it("answers 404 for an unknown agent's export", async () => {
    expect(await call(exportRoute.GET, { method: "GET", params: { id: "999999" } })).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
  });
});
