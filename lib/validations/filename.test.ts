import { describe, expect, it } from "vitest";
import { sanitizeDocumentPath, sanitizeFilename } from "./filename";

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;

describe("sanitizeFilename", () => {
  it("keeps an ordinary name as it is", () => {
    expect(sanitizeFilename("Support SLA (v2).md")).toBe("Support SLA (v2).md");
    expect(sanitizeFilename("Ünïcødé résumé.pdf")).toBe("Ünïcødé résumé.pdf");
    expect(sanitizeFilename("archive.tar.gz")).toBe("archive.tar.gz");
  });

  it("takes the last path segment, with either kind of slash", () => {
    expect(sanitizeFilename("../../etc/passwd.md")).toBe("passwd.md");
    expect(sanitizeFilename("C:\\Users\\ann\\notes.txt")).toBe("notes.txt");
  });

  it("removes bidi overrides, so the name shows the extension it really has", () => {
    expect(sanitizeFilename("invoice\u202etxt.exe.md")).toBe("invoicetxt.exe.md");
    expect(sanitizeFilename("\u2066a\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d.md")).toBe("a.md");
  });

  it("removes zero-width characters and C0/C1 controls and DEL", () => {
    expect(sanitizeFilename("fi\u200bl\u200ce\u200d\u2060\ufeff.txt")).toBe("file.txt");
    expect(sanitizeFilename("a\u0000b\u0007c\u001bd\u007fe\u0080f\u009f.md")).toBe("abcdef.md");
  });

  it("turns tabs and line breaks into single spaces and trims", () => {
    expect(sanitizeFilename("  quarterly\t\treport\r\nfinal  \u00a0 draft.md \n")).toBe("quarterly report final draft.md");
  });

  it("normalises to NFC", () => {
    const decomposed = "cafe\u0301.md";
    expect(sanitizeFilename(decomposed)).toBe("caf\u00e9.md");
    expect(sanitizeFilename("cafe\u200b\u0301.md")).toBe("caf\u00e9.md");
  });

  it("caps the name at 255 UTF-8 bytes, keeps the extension and never splits a character", () => {
    const long = sanitizeFilename(`${"x".repeat(5000)}.md`);
    expect(bytes(long)).toBe(255);
    expect(long.endsWith("xx.md")).toBe(true);

    const wide = sanitizeFilename(`${"日本".repeat(200)}.docx`);
    expect(bytes(wide)).toBeLessThanOrEqual(255);
    expect(wide).toMatch(/^[日本]+\.docx$/);

    const emoji = sanitizeFilename(`${"😀".repeat(100)}.txt`);
    expect(bytes(emoji)).toBeLessThanOrEqual(255);
    expect(emoji).toMatch(/^(😀)+\.txt$/u);
  });

  it("does not let an overlong extension survive the cap", () => {
    const name = sanitizeFilename(`report.${"y".repeat(400)}`);
    expect(bytes(name)).toBeLessThanOrEqual(255);
    expect(name.startsWith("report.yyy")).toBe(true);
  });

  it("falls back to untitled, keeping the extension", () => {
    expect(sanitizeFilename("")).toBe("untitled");
    expect(sanitizeFilename("\u202e\u200b\t\n")).toBe("untitled");
    expect(sanitizeFilename("dir/")).toBe("untitled");
    expect(sanitizeFilename("..")).toBe("untitled");
    expect(sanitizeFilename("\u202e\u0000.md")).toBe("untitled.md");
  });
});

describe("sanitizeDocumentPath", () => {
  it("keeps the folders of a relative path, with / between them", () => {
    expect(sanitizeDocumentPath("guides/setup.md")).toBe("guides/setup.md");
    expect(sanitizeDocumentPath("guides\\billing\\invoices.txt")).toBe("guides/billing/invoices.txt");
    expect(sanitizeDocumentPath("help.example.com/articles/refunds.html")).toBe("help.example.com/articles/refunds.html");
  });

  it("drops empty, . and .. segments, so a path cannot climb out or start at the root", () => {
    expect(sanitizeDocumentPath("../../etc/passwd.md")).toBe("etc/passwd.md");
    expect(sanitizeDocumentPath("/abs//./guides/../setup.md")).toBe("abs/guides/setup.md");
    expect(sanitizeDocumentPath("")).toBe("untitled");
  });

  it("cleans every segment as a filename and is the filename itself without folders", () => {
    expect(sanitizeDocumentPath("gu\u202eides/  set\tup.md ")).toBe("guides/set up.md");
    for (const name of ["Support SLA (v2).md", "invoice\u202etxt.exe.md", `${"x".repeat(5000)}.md`]) {
      expect(sanitizeDocumentPath(name)).toBe(sanitizeFilename(name));
    }
  });

  it("keeps at most 1,024 bytes, the file and its innermost folders", () => {
    const deep = `${Array.from({ length: 40 }, (_, i) => `folder-${String(i).padStart(2, "0")}-${"y".repeat(30)}`).join("/")}/file.md`;
    const kept = sanitizeDocumentPath(deep);
    expect(bytes(kept)).toBeLessThanOrEqual(1024);
    expect(kept.endsWith("folder-39-" + "y".repeat(30) + "/file.md")).toBe(true);
    expect(kept.startsWith("folder-")).toBe(true);
  });
});
