import { describe, expect, it } from "vitest";
import { htmlToText } from "./html.mjs";
import { extractText } from "./index";
import { rejection, utf8 } from "./test-fixtures";

const PAGE = `<!DOCTYPE html>
<html>
<head><title>Refunds | ACME</title><style>p { color: red }</style>
<script>var secret = "<p>not text</p>";</script></head>
<body>
  <noscript>Enable JavaScript</noscript>
  <h1>Refund   policy</h1>
  <p>Returns &amp; refunds within <b>14</b>&nbsp;days &mdash; &quot;no&quot; questions &lt;asked&gt;.</p>
  <script>document.write("tracking")</script>
  <ul><li>Item one</li><li>Item&#32;two</li></ul>
  <div>Line a<br>Line b</div>
  <style>.x{}</style>
</body>
</html>`;

describe("htmlToText", () => {
  it("keeps visible text only, one block per line", () => {
    expect(htmlToText(PAGE)).toBe(
      [
        "Refund policy",
        "",
        'Returns & refunds within 14 days — "no" questions <asked>.',
        "",
        "Item one",
        "Item two",
        "",
        "Line a",
        "Line b",
      ].join("\n"),
    );
  });

  it("drops script, style, noscript and head content", () => {
    const text = htmlToText(PAGE);
    for (const hidden of ["secret", "tracking", "color", "Enable JavaScript", "ACME", ".x"]) {
      expect(text).not.toContain(hidden);
    }
  });

  it("keeps at most one blank line between blocks", () => {
    const text = htmlToText("<section><article><p>A</p></article></section><div></div><div></div><p>B</p>");
    expect(text).toBe("A\n\nB");
  });

  it("collapses whitespace inside a block but keeps inline word boundaries", () => {
    expect(htmlToText("<p>\n   one\t\ttwo <em>three</em><strong>four</strong>   </p>")).toBe("one two threefour");
  });

  it("separates table cells and rows", () => {
    expect(htmlToText("<table><tr><th>Plan</th><th>Days</th></tr><tr><td>Basic</td><td>14</td></tr></table>")).toBe(
      "Plan Days\nBasic 14",
    );
  });

  it("preserves line breaks inside <pre>", () => {
    expect(htmlToText("<p>Run:</p><pre>npm run build\n  --prod</pre>")).toBe("Run:\n\nnpm run build\n  --prod");
  });

  it("handles deeply nested markup without overflowing the stack", () => {
    const depth = 20_000;
    expect(htmlToText(`${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}`)).toBe("deep");
  });

  it("handles fragments without html/body", () => {
    expect(htmlToText("Just <i>some</i> text")).toBe("Just some text");
  });
});

describe("extractText: html", () => {
  it("returns the html type and normalised text", async () => {
    const { type, text } = await extractText("page.htm", utf8("<p>One</p>\r\n<p>Two &euro;</p>\r\n"));
    expect(type).toBe("html");
    expect(text).toBe("One\n\nTwo €");
  });

  it("rejects a page with no visible text as empty", async () => {
    const message = await rejection(
      extractText("app.html", utf8("<html><head><title>App</title></head><body><script>boot()</script></body></html>")),
      "empty",
    );
    expect(message).toContain("no visible text");
  });
});
