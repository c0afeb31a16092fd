import { describe, expect, it } from "vitest";
import { extractText } from "./index";
import { buildDocx, buildDocxWithDocument, buildPdf, buildZip, rejection, utf8 } from "./test-fixtures";

describe("extractText: docx", () => {
  it("extracts both paragraphs of a real .docx", async () => {
    const bytes = await buildDocx(["Refunds are issued within 14 days.", "Contact support &amp; billing."]);
    await expect(extractText("policy.docx", bytes)).resolves.toEqual({
      type: "docx",
      text: "Refunds are issued within 14 days.\n\nContact support & billing.",
    });
  });

  it("collapses runs of empty paragraphs to one blank line", async () => {
    const { text } = await extractText("a.DOCX", await buildDocx(["One", "", "", "Two"]));
    expect(text).toBe("One\n\nTwo");
  });

  it("rejects a .docx without paragraphs as empty", async () => {
    await rejection(extractText("blank.docx", await buildDocx([])), "empty");
  });

  it("rejects plain text named .docx", async () => {
    const message = await rejection(extractText("a.docx", utf8("just text")), "type_mismatch");
    expect(message).toContain('"a.docx" is not a Word document');
  });

  it("names a recognised format when a .docx is something else", async () => {
    expect(await rejection(extractText("a.docx", buildPdf(["x"])), "type_mismatch")).toContain("looks like a PDF file");
  });

  it("rejects a legacy .doc renamed .docx with advice", async () => {
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    expect(await rejection(extractText("old.docx", ole), "type_mismatch")).toContain("save it as .docx");
  });

  it("rejects a ZIP that is not a Word document as a type mismatch", async () => {
    const zip = await buildZip({ "hello.txt": "hi", "xl/workbook.xml": "<workbook/>" });
    const message = await rejection(extractText("sheet.docx", zip), "type_mismatch");
    expect(message).toBe('"sheet.docx" is a ZIP archive but not a Word document.');
  });

  it("rejects a damaged ZIP as unreadable", async () => {
    const bytes = await buildDocx(["Hello"]);
    const message = await rejection(extractText("cut.docx", bytes.slice(0, 120)), "unreadable");
    expect(message).toBe('"cut.docx" could not be read as a Word document: the file is damaged or truncated.');
  });

  it("rejects malformed document XML as unreadable with a one-line reason", async () => {
    const bytes = await buildDocxWithDocument("<w:document><w:body><oops");
    const message = await rejection(extractText("bad.docx", bytes), "unreadable");
    expect(message).toBe('"bad.docx" could not be read as a Word document: its XML content is malformed.');
  });
});
