import { describe, expect, it } from "vitest";
import * as docRoute from "@/app/api/agents/[id]/documents/[docId]/route";
import * as fileRoute from "@/app/api/agents/[id]/documents/[docId]/file/route";
import { call } from "@/test/http";
import { newAgent } from "@/test/helpers";
import { TOPIC_PAGES, buildPdf, topicPagesIn } from "@/test/fixtures/extract/pdf";
import { LOCAL_PEER } from "@/test/http";
import { db } from "../db/client";
import { documentChunks } from "../db/chunks";
import { hasDocumentFile } from "../db/document-files";
import { getDocument, listDocuments } from "../db/documents";
import { deleteAgentRow } from "../db/agents";
import { askAgent } from "../ask/ask";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { exportAgentLines, linesStream } from "../transfer/export";
import { importAgent } from "../transfer/import";
import { addChunk, changeChunk, documentCuration } from "./curate";
import { ingestFile, rechunkDocument } from "./pipeline";
import { removeDocument } from "./remove";

const SETTINGS = { chunkSize: 200, chunkOverlap: 40 };

async function fileOf(agentId: number, documentId: number) {
  const req = new Request("http://localhost/test", { headers: LOCAL_PEER });
  return fileRoute.GET(req, { params: Promise.resolve({ id: String(agentId), docId: String(documentId) }) });
}

const getDoc = async (agentId: number, docId: number) =>
  (await call(docRoute.GET, { method: "GET", params: { id: String(agentId), docId: String(docId) } })).body;

describe("PDF pages on chunks", () => {
  it("gives every chunk of a 3-page PDF the pages its text comes from, and results and citations carry them", async () => {
    const agent = newAgent("pdf pages");
    const pdf = buildPdf(TOPIC_PAGES);
    const res = await ingestFile(agent.id, { filename: "policies.pdf", bytes: pdf }, SETTINGS);
    expect(res).toMatchObject({ outcome: "indexed", status: "ready" });
    const chunks = documentChunks(res.document_id!);
    expect(chunks.length).toBeGreaterThan(6);
    for (const c of chunks) expect(c.pages, c.text).toEqual(topicPagesIn(c.text));
    // Some chunk runs over a page break, and the last page has chunks of its own.
    expect(chunks.some((c) => c.pages!.first < c.pages!.last)).toBe(true);
    expect(chunks.some((c) => c.pages!.first === 3)).toBe(true);

    const [hit] = await searchAgentDocuments(agent.id, "couriers tracking parcels delivery", 1);
    expect(hit.pages).toEqual(topicPagesIn(hit.chunk_text));
    expect(hit.pages!.last).toBe(3);
    const asked = await askAgent(agent.id, "couriers tracking parcels delivery", 3);
    expect(asked.citations.length).toBeGreaterThan(0);
    for (const c of asked.citations) {
      const chunk = chunks.find((k) => k.chunk_index === c.chunk_index)!;
      expect(c.pages).toEqual(chunk.pages);
    }

    const body = await getDoc(agent.id, res.document_id!);
    expect(body.has_file).toBe(true);
    expect(body.page_starts).toHaveLength(3);
    expect(body.chunks.map((c: { pages: unknown }) => c.pages)).toEqual(chunks.map((c) => c.pages));

    const file = await fileOf(agent.id, res.document_id!);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(pdf);
  });

  it("keeps the pages through a re-chunk and an edit, and a chunk written by hand has none", async () => {
    const agent = newAgent("pdf pages curated");
    const res = await ingestFile(agent.id, { filename: "policies.pdf", bytes: buildPdf(TOPIC_PAGES) }, SETTINGS);
    const rechunked = await rechunkDocument(agent.id, res.document_id!, { chunkSize: 400, chunkOverlap: 0 });
    expect(rechunked.status).toBe("ready");
    const chunks = documentChunks(rechunked.document_id!);
    for (const c of chunks) expect(c.pages).toEqual(topicPagesIn(c.text));
    const last = documentCuration(getDocument(agent.id, rechunked.document_id!)).chunks.at(-1)!;
    const edited = await changeChunk(agent.id, last.id, { text: "Shipping is free over 50 euros." }, null);
    expect(edited.chunks.at(-1)).toMatchObject({ edited: true, pages: last.pages });
    const added = await addChunk(agent.id, edited.document_id, { text: "Written by hand: ask the team.", after: last.id }, null);
    expect(added.chunks.at(-1)).toMatchObject({ hand_written: true, pages: null });
    // The file is shared by the versions, and kept while one of them is.
    expect(hasDocumentFile(agent.id, getDocument(agent.id, added.document_id).sha256)).toBe(true);
    expect((await fileOf(agent.id, added.document_id)).status).toBe(200);
  });

  it("drops the file with the last document of its content, and with the agent", async () => {
    const agent = newAgent("pdf file lifetime");
    const pdf = buildPdf(TOPIC_PAGES);
    const a = await ingestFile(agent.id, { filename: "a.pdf", bytes: pdf }, SETTINGS);
    const other = newAgent("pdf file lifetime, other agent");
    const b = await ingestFile(other.id, { filename: "a.pdf", bytes: pdf }, SETTINGS);
    const sha = getDocument(agent.id, a.document_id!).sha256;
    await removeDocument(agent.id, a.document_id!);
    expect(hasDocumentFile(agent.id, sha)).toBe(false);
    // Another agent's copy of the same content keeps its own.
    expect(hasDocumentFile(other.id, sha)).toBe(true);
    expect((await fileOf(other.id, b.document_id!)).status).toBe(200);
    deleteAgentRow(other.id);
    expect(db().prepare("SELECT COUNT(*) AS n FROM document_files WHERE agent_id = ?").get(other.id)).toEqual({ n: 0 });
  });

  it("keeps no file of a rejected upload, nor of a text file, and says why a file is not there", async () => {
    const agent = newAgent("pdf file refused");
    const empty = await ingestFile(agent.id, { filename: "blank.pdf", bytes: buildPdf([null]) }, SETTINGS);
    expect(empty.status).toBe("rejected");
    expect(db().prepare("SELECT COUNT(*) AS n FROM document_files WHERE agent_id = ?").get(agent.id)).toEqual({ n: 0 });
    const txt = await ingestFile(agent.id, { filename: "notes.txt", bytes: new TextEncoder().encode("Plain notes.") }, SETTINGS);
    const res = await fileOf(agent.id, txt.document_id!);
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe(
      'The file of "notes.txt" is not kept: only PDFs uploaded since pages were recorded are. Upload the same file again to keep it.',
    );
    expect((await getDoc(agent.id, txt.document_id!)).has_file).toBe(false);
  });

  it("gives a PDF stored without pages its pages and file when the same file is uploaded again", async () => {
    const agent = newAgent("pdf pages completed");
    const pdf = buildPdf(TOPIC_PAGES);
    const res = await ingestFile(agent.id, { filename: "old.pdf", bytes: pdf }, SETTINGS);
    const id = res.document_id!;
    // As stored before pages were recorded: no page starts, no chunk pages, no file.
    db().prepare("UPDATE documents SET page_starts = NULL WHERE id = ?").run(id);
    db().prepare("UPDATE chunks SET page_first = NULL, page_last = NULL WHERE document_id = ?").run(id);
    db().prepare("DELETE FROM document_files WHERE agent_id = ?").run(agent.id);
    expect(documentChunks(id).every((c) => c.pages === undefined)).toBe(true);
    const again = await ingestFile(agent.id, { filename: "old.pdf", bytes: pdf }, SETTINGS);
    expect(again).toMatchObject({ outcome: "duplicate", document_id: id });
    expect(documentChunks(id).map((c) => c.pages)).toEqual(documentChunks(id).map((c) => topicPagesIn(c.text)));
    expect((await fileOf(agent.id, id)).status).toBe(200);
  });

  it("carries the pages and the OCR record through an export and import, and refuses page starts that do not fit the text", async () => {
    const agent = newAgent("pdf pages transfer");
    const res = await ingestFile(agent.id, { filename: "policies.pdf", bytes: buildPdf(TOPIC_PAGES) }, SETTINGS);
    const lines: string[] = [];
    for await (const line of exportAgentLines(agent.id)) lines.push(line);
    const imported = await importAgent(linesStream(toLines(lines)), { name: `${agent.name} copy` });
    const [copy] = listDocuments(imported.agent.id);
    expect(getDocument(imported.agent.id, copy.id).page_starts).toEqual(getDocument(agent.id, res.document_id!).page_starts);
    expect(documentChunks(copy.id).map((c) => c.pages)).toEqual(documentChunks(res.document_id!).map((c) => c.pages));

    const bad = lines.map((line) => {
      const parsed = JSON.parse(line);
      if (parsed.type !== "document") return line;
      parsed.document.page_starts = [0, 10_000_000];
      return `${JSON.stringify(parsed)}\n`;
    });
    await expect(importAgent(linesStream(toLines(bad)), { name: `${agent.name} bad` })).rejects.toThrow(
      /the page starts of "policies.pdf" do not fit its text/,
    );
  });
});

async function* toLines(lines: string[]): AsyncGenerator<string> {
  yield* lines;
}
