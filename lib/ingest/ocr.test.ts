import { describe, expect, it } from "vitest";
import * as doc from "@/app/api/agents/[id]/documents/[docId]/route";
import { call } from "@/test/http";
import { newAgent } from "@/test/helpers";
import {
  SCANNED_ARTICLE,
  SETTINGS_SCREEN,
  buildImagePdf,
  drawBlank,
  drawScreenshot,
  scannedPdfPage,
  wordRecall,
} from "@/test/fixtures/extract/images";
import { listDocuments } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { collectionFor } from "../vector-store/client";
import { ingestFile, rechunkDocument } from "./pipeline";

const SETTINGS = { chunkSize: 800, chunkOverlap: 100 };

/** Every vector Chroma holds for the agent, whatever its document. */
async function agentVectorIds(agentId: number): Promise<string[]> {
  const collection = await collectionFor(embedder());
  return (await collection.get({ where: { agent_id: agentId } })).ids;
}

const getDoc = async (agentId: number, docId: number) =>
  (await call(doc.GET, { method: "GET", params: { id: String(agentId), docId: String(docId) } })).body;

describe("ingesting images and scanned PDFs, read by OCR", () => {
  it("indexes a screenshot's text, and the document says OCR read it, with its confidence", async () => {
    const agent = newAgent("ocr image");
    const res = await ingestFile(agent.id, { filename: "settings.png", bytes: drawScreenshot(SETTINGS_SCREEN).png }, SETTINGS);
    expect(res).toMatchObject({ outcome: "indexed", status: "ready" });
    const body = await getDoc(agent.id, res.document_id!);
    expect(body).toMatchObject({ type: "png", ocr: { image: { confidence: expect.any(Number) } } });
    expect(wordRecall(SETTINGS_SCREEN.join("\n"), body.text)).toBeGreaterThanOrEqual(0.95);
    const [hit] = await searchAgentDocuments(agent.id, "retention period for archived conversations", 1);
    expect(hit).toMatchObject({ document_id: res.document_id, filename: "settings.png" });
  });

  it("records the pages of a PDF read by OCR, and a re-chunk keeps the record", async () => {
    const agent = newAgent("ocr pdf");
    const pdf = buildImagePdf([{ text: "Invoices are issued on the first day of each billing period." }, scannedPdfPage(SCANNED_ARTICLE)]);
    const res = await ingestFile(agent.id, { filename: "refunds.pdf", bytes: pdf }, SETTINGS);
    expect(res).toMatchObject({ outcome: "indexed", status: "ready" });
    const { ocr } = await getDoc(agent.id, res.document_id!);
    expect(ocr).toEqual({ pages: [{ page: 2, confidence: expect.any(Number) }] });
    const rechunked = await rechunkDocument(agent.id, res.document_id!, { chunkSize: 200, chunkOverlap: 20 });
    expect(rechunked.status).toBe("ready");
    expect((await getDoc(agent.id, rechunked.document_id!)).ocr).toEqual(ocr);
    // A document OCR had no part in says so.
    const text = await ingestFile(
      agent.id,
      { filename: "notes.pdf", bytes: buildImagePdf([{ text: "Support hours are nine to five." }]) },
      SETTINGS,
    );
    expect((await getDoc(agent.id, text.document_id!)).ocr).toBeNull();
  });

  it("rejects an image without text, with the reason, leaving no document row and no vectors", async () => {
    const agent = newAgent("ocr blank");
    const res = await ingestFile(agent.id, { filename: "blank.png", bytes: drawBlank().png }, SETTINGS);
    expect(res).toEqual({
      filename: "blank.png",
      document_id: null,
      chunk_count: 0,
      outcome: "rejected",
      status: "rejected",
      code: "ocr_no_text",
      message: '"blank.png": no text was found in the image (OCR confidence 0%).',
    });
    expect(listDocuments(agent.id)).toEqual([]);
    expect(await agentVectorIds(agent.id)).toEqual([]);
  });
});
