// Builders for real PDF/DOCX bytes, shared by the tests. Not imported by app code.
import JSZip from "jszip";
import { expect } from "vitest";
import { RejectedFileError, type RejectionCode } from "./errors";

const encoder = new TextEncoder();

export const utf8 = (s: string) => encoder.encode(s);

/**
 * A minimal PDF 1.4: one page per entry, each showing its string in Helvetica;
 * `null` gives a page with an empty content stream (no text layer, like a scan).
 */
export function buildPdf(pages: (string | null)[]): Uint8Array {
  const objects: string[] = [];
  const kids = pages.map((_, i) => `${4 + i * 2} 0 R`).join(" ");
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  pages.forEach((text, i) => {
    const content = text === null ? "" : `BT /F1 12 Tf 72 720 Td (${escapePdfString(text)}) Tj ET`;
    objects.push(
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " +
        `/Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
    );
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  });

  // Offsets are byte positions; the body is ASCII so string length equals byte length.
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  if (/[^\x00-\x7f]/.test(out)) throw new Error("buildPdf only supports ASCII text");
  return utf8(out);
}

function escapePdfString(s: string): string {
  return s.replace(/[\\()]/g, (c) => `\\${c}`);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>`;

const PACKAGE_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`;

/** document.xml with one <w:p> per entry; entries must already be XML-escaped. */
export function documentXml(paragraphs: string[]): string {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${p}</w:t></w:r></w:p>`).join("");
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`
  );
}

/**
 * document.xml as Word writes it: paragraph and run properties, revision ids, proofing marks, and each
 * paragraph split into two runs, the second bold. Entries must already be XML-escaped.
 */
export function formattedDocumentXml(paragraphs: string[]): string {
  const font = `<w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:cs="Calibri"/><w:sz w:val="22"/><w:szCs w:val="22"/>`;
  const body = paragraphs
    .map((p, i) => {
      const cut = Math.floor(p.length / 2);
      return (
        `<w:p w14:paraId="${(0x10000000 + i).toString(16)}" w:rsidR="00A1B2C3" w:rsidRDefault="00D4E5F6">` +
        `<w:pPr><w:pStyle w:val="BodyText"/><w:spacing w:after="120" w:line="276" w:lineRule="auto"/><w:rPr>${font}</w:rPr></w:pPr>` +
        `<w:r w:rsidRPr="00112233"><w:rPr>${font}</w:rPr><w:t xml:space="preserve">${p.slice(0, cut)}</w:t></w:r><w:proofErr w:type="spellStart"/>` +
        `<w:r w:rsidRPr="00112233"><w:rPr><w:b/><w:bCs/>${font}</w:rPr><w:t xml:space="preserve">${p.slice(cut)}</w:t></w:r><w:proofErr w:type="spellEnd"/></w:p>`
      );
    })
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
    `xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml"><w:body>${body}<w:sectPr/></w:body></w:document>`
  );
}

export async function buildZip(files: Record<string, string>): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, content] of Object.entries(files)) zip.file(name, content);
  return zip.generateAsync({ type: "uint8array" });
}

export function buildDocx(paragraphs: string[]): Promise<Uint8Array> {
  return buildDocxWithDocument(documentXml(paragraphs));
}

export function buildDocxWithDocument(xml: string): Promise<Uint8Array> {
  return buildZip({ "[Content_Types].xml": CONTENT_TYPES, "_rels/.rels": PACKAGE_RELS, "word/document.xml": xml });
}

/** Asserts the rejection code and returns the message; also checks it is user-facing (one line, no stack). */
export async function rejection(promise: Promise<unknown>, code: RejectionCode): Promise<string> {
  const err = await promise.then(
    () => expect.fail(`expected a "${code}" rejection, but extraction succeeded`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RejectedFileError);
  const rejected = err as RejectedFileError;
  expect({ code: rejected.code, message: rejected.message }).toMatchObject({ code });
  expect(rejected.message).not.toMatch(/\n|\bat .+:\d+:\d+/);
  return rejected.message;
}

/**
 * A help-centre export of about `bytes` bytes: `article`s, each between a breadcrumb `nav`, a related-links
 * `aside` and a site footer, so its visible article text is about a sixth of its size.
 */
export function buildHtmlExport(bytes: number): { html: string; articles: number } {
  const parts = ["<!doctype html><html><head><title>Help centre export</title></head><body>\n"];
  let size = parts[0].length;
  let articles = 0;
  for (;;) {
    const i = articles;
    const related = [0, 1, 2, 3].map((k) => `<li><a class="related__link" href="/help/${i * 7 + k}">Related ${k}</a></li>`).join("");
    const article =
      `<nav class="breadcrumbs"><ul><li><a href="/">Home</a></li><li><a href="/help">Help centre</a></li></ul></nav>` +
      `<article class="help-article" data-id="${i}"><h2 class="help-article__title">Article ${i}</h2>` +
      `<p class="help-article__body">Customers on plan ${i % 97} turn on feature ${i % 31} under Settings; ` +
      `the change reaches every device within ${(i % 13) + 1} minutes.</p></article>` +
      `<aside class="related"><h3>Related articles</h3><ul>${related}</ul></aside>` +
      `<footer class="site-footer"><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>\n`;
    if (size + article.length + 20 > bytes) break;
    parts.push(article);
    size += article.length;
    articles++;
  }
  parts.push("</body></html>");
  return { html: parts.join(""), articles };
}
