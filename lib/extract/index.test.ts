import { describe, expect, it } from "vitest";
import { buildPdf, buildZip, rejection, utf8 } from "../../test/fixtures/extract/builders";
import { extractText, RejectedFileError } from "./index";

const PNG_HEADER = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52];

describe("extractText: type from the file name", () => {
  it.each([
    ["notes.txt", "txt"],
    ["NOTES.TXT", "txt"],
    ["readme.md", "md"],
    ["Readme.Markdown", "md"],
    ["page.html", "html"],
    ["page.HTM", "html"],
  ] as const)("%s is %s", async (name, type) => {
    await expect(extractText(name, utf8("hello"))).resolves.toEqual({ type, text: "hello" });
  });

  it("rejects other extensions, naming the file and the accepted types", async () => {
    const message = await rejection(extractText("setup.exe", utf8("MZ")), "unsupported_type");
    expect(message).toContain('"setup.exe"');
    expect(message).toContain(".exe");
    for (const ext of [".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"]) expect(message).toContain(ext);
  });

  it("rejects a name without extension and suggests .docx for .doc", async () => {
    expect(await rejection(extractText("README", utf8("hi")), "unsupported_type")).toContain("no file extension");
    expect(await rejection(extractText("old.doc", utf8("hi")), "unsupported_type")).toMatch(/save it as \.docx/i);
  });

  it("checks the type before the size, so an .exe is never reported as merely too large", async () => {
    await rejection(extractText("big.exe", new Uint8Array(10), { maxBytes: 1 }), "unsupported_type");
  });
});

describe("extractText: size", () => {
  it("rejects files over maxBytes with size and limit in MB", async () => {
    const bytes = new Uint8Array(3 * 1024 * 1024).fill(0x61);
    const message = await rejection(extractText("big.txt", bytes, { maxBytes: 2 * 1024 * 1024 }), "too_large");
    expect(message).toBe('"big.txt" is 3 MB, over the 2 MB upload limit.');
  });

  it("accepts a file of exactly maxBytes", async () => {
    await expect(extractText("a.txt", utf8("abcd"), { maxBytes: 4 })).resolves.toEqual({ type: "txt", text: "abcd" });
  });

  it("does not print a just-over-limit size as equal to the limit", async () => {
    const message = await rejection(extractText("a.txt", new Uint8Array(1024 * 1024 + 1), { maxBytes: 1024 * 1024 }), "too_large");
    expect(message).toContain("more than 1 MB");
  });

  it("rejects zero bytes as empty", async () => {
    expect(await rejection(extractText("a.pdf", new Uint8Array(0)), "empty")).toContain("0 bytes");
  });
});

describe("extractText: plain text and markdown", () => {
  it("normalises CRLF and lone CR to LF", async () => {
    const { text } = await extractText("a.txt", utf8("one\r\ntwo\rthree\n"));
    expect(text).toBe("one\ntwo\nthree");
  });

  it("strips a UTF-8 byte order mark", async () => {
    const { text } = await extractText("a.txt", new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("Refunds")]));
    expect(text).toBe("Refunds");
    expect(text.charCodeAt(0)).toBe(0x52);
  });

  it("keeps markdown as written, trimming only trailing whitespace", async () => {
    const md = "\n# Title\n\n  - item *one*\n\n\n\n```ts\nconst x = 1;\n```\n  \n\n";
    const { text } = await extractText("doc.md", utf8(md));
    expect(text).toBe("\n# Title\n\n  - item *one*\n\n\n\n```ts\nconst x = 1;\n```");
  });

  it("keeps a markdown pipe table's rows header first, and gives a table written without outer pipes its pipes", async () => {
    const md = [
      "| Plan | Price |",
      "|---|---:|",
      "| Team | $20 |",
      "",
      "Region | Uptime",
      ":--- | ---",
      "  EU | 99.9%",
      "US | 99.5% \\| measured",
      "",
      "```",
      "grep a | sort",
      "--- | ---",
      "```",
    ].join("\n");
    const { text } = await extractText("prices.md", utf8(md));
    expect(text.split("\n")).toEqual([
      "| Plan | Price |",
      "|---|---:|",
      "| Team | $20 |",
      "",
      "| Region | Uptime |",
      "| :--- | --- |",
      "| EU | 99.9% |",
      "| US | 99.5% \\| measured |",
      "",
      "```",
      "grep a | sort",
      "--- | ---",
      "```",
    ]);
    // A plain text file is left as written.
    expect((await extractText("prices.txt", utf8("Region | Uptime\n--- | ---\nEU | 99.9%"))).text).toBe(
      "Region | Uptime\n--- | ---\nEU | 99.9%",
    );
  });

  it("decodes non-ASCII UTF-8", async () => {
    await expect(extractText("a.txt", utf8("Café – 返金 🙂"))).resolves.toMatchObject({ text: "Café – 返金 🙂" });
  });

  it("rejects whitespace-only text as empty", async () => {
    await rejection(extractText("blank.txt", utf8(" \r\n\t\n")), "empty");
  });
});

describe("extractText: binary content under a text name", () => {
  it("rejects a PNG renamed .txt as a type mismatch", async () => {
    const message = await rejection(extractText("photo.txt", new Uint8Array(PNG_HEADER)), "type_mismatch");
    expect(message).toBe('"photo.txt" looks like a PNG image, not text.');
  });

  it("recognises a PDF or a ZIP renamed to a text type", async () => {
    expect(await rejection(extractText("doc.md", buildPdf(["x"])), "type_mismatch")).toContain("PDF");
    expect(await rejection(extractText("doc.html", await buildZip({ "a.txt": "a" })), "type_mismatch")).toContain("ZIP");
  });

  it("rejects unknown binary data (NUL bytes) as a type mismatch", async () => {
    const message = await rejection(extractText("data.txt", new Uint8Array([0x41, 0x00, 0x42, 0x01])), "type_mismatch");
    expect(message).toContain("binary file");
  });
});

describe("extractText: encoding", () => {
  it("rejects invalid UTF-8 (Latin-1 bytes) as an encoding problem", async () => {
    const latin1 = new Uint8Array([...utf8("caf"), 0xe9, ...utf8(" au lait")]);
    const message = await rejection(extractText("menu.txt", latin1), "encoding");
    expect(message).toContain('"menu.txt" is not valid UTF-8');
  });

  it("rejects invalid UTF-8 in html too", async () => {
    await rejection(extractText("a.html", new Uint8Array([0x3c, 0x70, 0x3e, 0xff, 0xfe, 0x41])), "encoding");
  });

  it("reports UTF-16 as an encoding problem rather than binary", async () => {
    const utf16le = new Uint8Array([0xff, 0xfe, 0x48, 0x00, 0x69, 0x00]);
    expect(await rejection(extractText("a.txt", utf16le), "encoding")).toContain("UTF-16");
  });
});

describe("RejectedFileError", () => {
  it("is an Error carrying a code", () => {
    const err = new RejectedFileError("empty", "nothing");
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("RejectedFileError");
    expect([err.code, err.message]).toEqual(["empty", "nothing"]);
  });
});
