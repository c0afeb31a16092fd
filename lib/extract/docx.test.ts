import { describe, expect, it } from "vitest";
import { buildDocx, buildDocxWithDocument, buildPdf, buildZip, rejection, utf8 } from "../../test/fixtures/extract/builders";
import { readDocxText } from "./docx-reader.mjs";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { extractText } from "./index";

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

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/** A .docx whose body is `body`, with the w, v, mc and wordml prefixes bound, and other parts as given. */
function docxWithBody(body: string, prefix = "w", parts: Record<string, string> = {}): Promise<Uint8Array> {
  return buildDocxWithDocument(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${prefix}:document xmlns:${prefix}="${W}" ` +
      `xmlns:v="urn:schemas-microsoft-com:vml" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ` +
      `xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml"><${prefix}:body>${body}</${prefix}:body></${prefix}:document>`,
    parts,
  );
}

const p = (...runs: string[]) => `<w:p>${runs.join("")}</w:p>`;
const r = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const read = async (body: string) => (await extractText("a.docx", await docxWithBody(body))).text;

describe("extractText: what of a Word document is text", () => {
  it("separates the words on either side of a line, page or column break", async () => {
    expect(await read(p(`<w:r><w:t>Open Settings</w:t><w:br/><w:t>then Billing</w:t><w:br w:type="page"/><w:t>Done</w:t></w:r>`))).toBe(
      "Open Settings\nthen Billing\nDone",
    );
  });

  it("reads any prefix bound to the WordprocessingML namespace", async () => {
    const bytes = await docxWithBody(`<x:p><x:r><x:t>Prefixed</x:t></x:r></x:p>`, "x");
    expect((await extractText("a.docx", bytes)).text).toBe("Prefixed");
  });

  it("keeps tables, tabs, links, inserted text and field results; drops deleted text, deleted rows and field codes", async () => {
    const body =
      p(
        r("Before"),
        `<w:ins><w:r><w:t xml:space="preserve"> inserted</w:t></w:r></w:ins>`,
        `<w:del><w:r><w:delText> deleted</w:delText></w:r></w:del>`,
      ) +
      `<w:tbl><w:tblPr/><w:tr><w:tc>${p(r("A1"))}</w:tc><w:tc>${p(`<w:r><w:t>A2</w:t><w:tab/><w:t>x</w:t></w:r>`)}</w:tc></w:tr>` +
      `<w:tr><w:trPr><w:del w:id="3"/></w:trPr><w:tc>${p(r("Removed row"))}</w:tc></w:tr></w:tbl>` +
      p(`<w:hyperlink r:id="rId9" xmlns:r="x"><w:r><w:t>a link</w:t></w:r></w:hyperlink>`) +
      p(
        `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>`,
        `<w:r><w:fldChar w:fldCharType="separate"/></w:r>`,
        r("7"),
        `<w:r><w:fldChar w:fldCharType="end"/></w:r>`,
      );
    expect(await read(body)).toBe("Before inserted\n\n| A1 | A2 x |\n\na link\n\n7");
  });

  it("writes each table row as one line of pipe-separated cells, the first row first", async () => {
    const cell = (...paragraphs: string[]) => `<w:tc><w:tcPr/>${paragraphs.map((t) => p(r(t))).join("")}</w:tc>`;
    const row = (...cells: string[]) => `<w:tr>${cells.join("")}</w:tr>`;
    const nested = `<w:tbl><w:tr>${cell("inner a")}${cell("inner b")}</w:tr></w:tbl>`;
    const body =
      p(r("Our plans:")) +
      `<w:tbl><w:tblPr/><w:tblGrid/>${row(cell("Plan"), cell("Price"), cell("Seats"))}` +
      row(cell("Team"), cell("$20", "billed yearly"), cell("10")) +
      row(cell("Pro | Plus"), `<w:tc>${p(r("$40"))}${nested}</w:tc>`, cell("")) +
      `</w:tbl>` +
      p(r("Prices exclude VAT."));
    expect((await read(body)).split("\n")).toEqual([
      "Our plans:",
      "",
      "| Plan | Price | Seats |",
      "| Team | $20 billed yearly | 10 |",
      "| Pro \\| Plus | $40 inner a inner b |  |",
      "",
      "Prices exclude VAT.",
    ]);
  });

  it("runs a paragraph whose mark is deleted on into the next", async () => {
    expect(await read(`<w:p><w:pPr><w:rPr><w:del w:id="1"/></w:rPr></w:pPr>${r("Joined ")}</w:p>${p(r("here"))}`)).toBe("Joined here");
  });

  it("writes a text box after its paragraph and reads the fallback of alternate content", async () => {
    const box = `<w:r><w:pict><v:shape><v:textbox><w:txbxContent>${p(r("In the box"))}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>`;
    const alternate = `<mc:AlternateContent><mc:Choice Requires="wps">${r("Choice")}</mc:Choice><mc:Fallback>${r(" fallback")}</mc:Fallback></mc:AlternateContent>`;
    expect(await read(p(r("Before"), box, r(" after"), alternate) + p(r("Next")))).toBe("Before after fallback\n\nIn the box\n\nNext");
  });

  it("drops a check box's glyph but keeps its label, and maps symbol-font characters", async () => {
    const checkbox = `<w:sdt><w:sdtPr><w14:checkbox><w14:checked w14:val="1"/></w14:checkbox></w:sdtPr><w:sdtContent>${r("☒")}</w:sdtContent></w:sdt>`;
    expect(
      await read(p(checkbox, r("I agree")) + p(`<w:r><w:sym w:font="Symbol" w:char="F061"/><w:t xml:space="preserve"> = 0.5</w:t></w:r>`)),
    ).toBe("I agree\n\nα = 0.5");
  });

  it("stops reading once the text passes the limit", async () => {
    const bytes = await docxWithBody(Array.from({ length: 1_000 }, (_, i) => p(r(`Paragraph ${i}`))).join(""));
    await expect(readDocxText(bytes, { maxChars: 5_000, maxXmlBytes: 1e9 })).rejects.toBeInstanceOf(LimitExceeded);
    expect(await readDocxText(bytes, { maxChars: 50_000, maxXmlBytes: 1e9 })).toContain("Paragraph 999");
  });
});

/** A run holding a picture as Word writes one in line with text: its alt text in wp:docPr's descr, `inner` in its properties. */
const picture = (attributes: string, inner = "") =>
  `<w:r><w:drawing><wp:inline distT="0" distB="0" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">` +
  `<wp:extent cx="5486400" cy="3086100"/><wp:docPr id="1" name="Picture 1" ${attributes}>${inner}</wp:docPr>` +
  `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
  `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="0" name="billing.png"/></pic:nvPicPr>` +
  `<pic:blipFill><a:blip r:embed="rId4" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"/></pic:blipFill>` +
  `</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
const styled = (style: string, ...runs: string[]) => `<w:p><w:pPr><w:pStyle w:val="${style}"/></w:pPr>${runs.join("")}</w:p>`;
const ALT = "The Billing tab with the Cancel subscription button";

describe("extractText: a Word document's pictures and captions", () => {
  it("writes a picture's alt text in its paragraph and joins the caption under it to that paragraph", async () => {
    const body =
      p(r("Open the Billing tab:"), picture(`descr="${ALT}"`), r("then confirm.")) +
      styled(
        "Caption",
        r("Figure "),
        `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> SEQ Figure \\* ARABIC </w:instrText></w:r>`,
        `<w:r><w:fldChar w:fldCharType="separate"/></w:r>${r("1")}<w:r><w:fldChar w:fldCharType="end"/></w:r>`,
        r(": Billing"),
      ) +
      p(r("Your plan stays active until the end of the period."));
    expect((await read(body)).split("\n\n")).toEqual([
      `Open the Billing tab: [Image: ${ALT}] then confirm. [Figure: Figure 1: Billing]`,
      "Your plan stays active until the end of the period.",
    ]);
  });

  it("reads the title when there is no description, and skips decorative pictures and alt text that only names a file", async () => {
    const decorative =
      `<a:extLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:ext uri="{C183D7F6-B498-43B3-948B-1728B52AA6E4}">` +
      `<adec:decorative xmlns:adec="http://schemas.microsoft.com/office/drawing/2017/decorative" val="1"/></a:ext></a:extLst>`;
    const body =
      p(r("Title:"), picture(`descr="" title="The plans page"`)) +
      p(r("Decorative:"), picture(`descr="A blue line"`, decorative)) +
      p(r("File:"), picture(`descr="C:\\Users\\ann\\Pictures\\IMG_2043.png"`)) +
      p(r("Generated:"), picture(`descr="A screenshot of a computer&#xA;&#xA;Description automatically generated"`));
    expect((await read(body)).split("\n\n")).toEqual([
      "Title: [Image: The plans page]",
      "Decorative:",
      "File:",
      "Generated: [Image: A screenshot of a computer]",
    ]);
  });

  it("knows a caption style by its built-in name in any language, and leaves a caption that follows no picture as it is", async () => {
    const styles =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}">` +
      `<w:style w:type="paragraph" w:styleId="Beschriftung"><w:name w:val="caption"/><w:basedOn w:val="Standard"/></w:style>` +
      `<w:style w:type="paragraph" w:styleId="Abbildung"><w:name w:val="Abbildung"/><w:basedOn w:val="Beschriftung"/></w:style></w:styles>`;
    const body =
      styled("Beschriftung", r("Tabelle 1: Preise")) +
      p(r("Preise ohne MwSt.")) +
      p(picture(`descr="Der Reiter Abrechnung"`)) +
      p() +
      styled("Abbildung", r("Abbildung 1: Abrechnung"));
    const bytes = await docxWithBody(body, "w", { "word/styles.xml": styles });
    expect((await extractText("de.docx", bytes)).text.split("\n\n")).toEqual([
      "Tabelle 1: Preise",
      "Preise ohne MwSt.",
      "[Image: Der Reiter Abrechnung] [Figure: Abbildung 1: Abrechnung]",
    ]);
  });
});
