import { describe, expect, it } from "vitest";
import { buildPdf, rejection, utf8 } from "../../test/fixtures/extract/builders";
import { extractText } from "./index";

describe("extractText: pdf", () => {
  it("extracts the text layer of a real PDF", async () => {
    await expect(extractText("policy.pdf", buildPdf(["Hello refund policy"]))).resolves.toEqual({
      type: "pdf",
      text: "Hello refund policy",
      pageStarts: [0],
    });
  });

  it("records where each page starts in the text, a page without text holding no character", async () => {
    const pages = ["Refunds are paid within 14 days.\nAsk support for a form.", null, "Page three: invoices.", "Page four: taxes."];
    const { text, pageStarts } = await extractText("three.pdf", buildPdf(pages));
    expect(text).toBe("Refunds are paid within 14 days.\nAsk support for a form.\n\nPage three: invoices.\n\nPage four: taxes.");
    expect(pageStarts).toEqual([0, 58, 58, 81]);
    expect(text.slice(pageStarts![2], pageStarts![3])).toBe("Page three: invoices.\n\n");
    expect(text.slice(pageStarts![3])).toBe("Page four: taxes.");
  });

  it("accepts an upper-case extension", async () => {
    await expect(extractText("POLICY.PDF", buildPdf(["Hello"]))).resolves.toMatchObject({ type: "pdf" });
  });

  it("separates pages with one blank line, skipping textless pages", async () => {
    const { text } = await extractText("two.pdf", buildPdf(["Page one (intro)", null, "Page two"]));
    expect(text).toBe("Page one (intro)\n\nPage two");
  });

  it("leaves the caller's bytes intact (pdf.js detaches the buffer it is given)", async () => {
    const bytes = buildPdf(["Hello"]);
    const length = bytes.byteLength;
    await extractText("a.pdf", bytes);
    expect(bytes.byteLength).toBe(length);
    await expect(extractText("a.pdf", bytes)).resolves.toMatchObject({ text: "Hello" });
  });

  it("reads a Node Buffer and leaves it intact", async () => {
    const bytes = Buffer.from(buildPdf(["Hello"]));
    const copy = Buffer.from(bytes);
    await expect(extractText("a.pdf", bytes)).resolves.toMatchObject({ text: "Hello" });
    expect(bytes.equals(copy)).toBe(true);
  });

  it("rejects content that does not start with %PDF-", async () => {
    const message = await rejection(extractText("notes.pdf", utf8("Hello refund policy")), "type_mismatch");
    expect(message).toBe('"notes.pdf" is not a PDF: its content does not start with %PDF-.');
  });

  it("rejects a PDF whose pages hold neither a text layer nor an image for OCR as empty", async () => {
    const message = await rejection(extractText("blank.pdf", buildPdf([null, null])), "empty");
    expect(message).toBe('"blank.pdf" contains no text: its pages have no text layer, and no image for OCR to read.');
  });

  it("rejects a truncated PDF as unreadable with a short reason", async () => {
    const bytes = buildPdf(["Hello refund policy"]);
    const message = await rejection(extractText("cut.pdf", bytes.slice(0, 200)), "unreadable");
    expect(message).toBe('"cut.pdf" could not be read as a PDF: the file is damaged or truncated.');
  });

  it("rejects a PDF header followed by garbage as unreadable", async () => {
    await rejection(extractText("junk.pdf", utf8("%PDF-1.7\nthis is not a pdf body at all")), "unreadable");
  });

  it("applies maxBytes to PDFs", async () => {
    await rejection(extractText("a.pdf", buildPdf(["Hello"]), { maxBytes: 100 }), "too_large");
  });
});
