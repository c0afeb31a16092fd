import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chunkText } from "../core/chunking";
import { rejection, utf8 } from "../../test/fixtures/extract/builders";
import { htmlToText } from "./html.mjs";
import { LimitExceeded } from "./limit-exceeded.mjs";
import { extractText } from "./index";

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
        "# Refund policy",
        "",
        'Returns & refunds within 14 days — "no" questions <asked>.',
        "",
        "- Item one",
        "- Item two",
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
    const text = htmlToText("<section><blockquote><p>A</p></blockquote></section><div></div><div></div><p>B</p>");
    expect(text).toBe("A\n\nB");
  });

  it("collapses whitespace inside a block but keeps inline word boundaries", () => {
    expect(htmlToText("<p>\n   one\t\ttwo <em>three</em><strong>four</strong>   </p>")).toBe("one two threefour");
  });

  it("writes a table's rows as lines of pipe-separated cells", () => {
    expect(htmlToText("<table><tr><th>Plan</th><th>Days</th></tr><tr><td>Basic</td><td>14</td></tr></table>")).toBe(
      "| Plan | Days |\n| Basic | 14 |",
    );
  });

  it("preserves line breaks inside <pre>", () => {
    expect(htmlToText("<p>Run:</p><pre>npm run build\n  --prod</pre>")).toBe("Run:\n\nnpm run build\n  --prod");
  });

  it("keeps the text of markup inside <pre>, not the tags: highlighted code and its copy button", () => {
    const page = `<pre><code class="language-sh"><span class="kw">curl</span> -H &quot;Accept: */*&quot; \\\n  https://example.com/a?b=1&amp;c=2</code><button>copy</button></pre>`;
    expect(htmlToText(page)).toBe('curl -H "Accept: */*" \\\n  https://example.com/a?b=1&c=2');
  });

  it("reads </br> as a line break and a lone </p> as an empty paragraph, as browsers do", () => {
    expect(htmlToText("<p><b>Apache License</b></br>Version 2.0</p>")).toBe("Apache License\nVersion 2.0");
    expect(htmlToText("<div>One</p>Two</div>")).toBe("One\n\nTwo");
  });

  it("handles deeply nested markup without overflowing the stack", () => {
    const depth = 20_000;
    expect(htmlToText(`${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}`)).toBe("deep");
  });

  it("handles fragments without html/body", () => {
    expect(htmlToText("Just <i>some</i> text")).toBe("Just some text");
  });
});

const HELP_PAGE = fs.readFileSync(path.join(import.meta.dirname, "../../test/fixtures/extract/help-centre-page.html"), "utf8");

describe("htmlToText: article, not page chrome", () => {
  const text = htmlToText(HELP_PAGE);
  const lines = text.split("\n");

  it("keeps the article's headings, paragraphs, lists and table", () => {
    for (const kept of [
      "# How do I get a refund?",
      "## Who can get a refund",
      "## How to request a refund",
      "## Refund times",
      "### Still waiting?",
      "You can ask for a refund on most orders within 30 days of delivery.",
      "Refunds are available for unused items returned in their original packaging.",
      "- Physical products bought from the ACME online shop",
      "- Annual subscriptions cancelled within 14 days",
      "1. Sign in to your account and open Orders.",
      "2. Choose the order and select Request refund.",
      "3. Print the returns label and post the parcel.",
      "| Payment method | Refund time |\n| Card | 3-5 working days |\n| PayPal | 24 hours |\n| Bank transfer | Up to 10 working days |",
    ]) {
      expect(text).toContain(kept);
    }
  });

  it("drops navigation, breadcrumb, search, cookie banner, feedback form, related links and footer", () => {
    for (const chrome of [
      "Skip to main content",
      "ACME Support",
      "Home",
      "Help centre",
      "Contact",
      "Open menu",
      "Support home",
      "Orders and payments",
      "Search",
      "We use cookies",
      "Accept all cookies",
      "Manage preferences",
      "Was this article helpful?",
      "Yes",
      "found this helpful",
      "Related articles",
      "Cancelling a subscription",
      "Tracking your parcel",
      "Copyright 2026 ACME Ltd",
      "Privacy notice",
      "Terms of use",
      "gtag",
      "line-height",
    ]) {
      expect(text).not.toContain(chrome);
    }
  });

  it("puts each heading and list item on its own line, headings between blank lines", () => {
    const heading = lines.indexOf("## How to request a refund");
    expect(lines[heading - 1]).toBe("");
    expect(lines[heading + 1]).toBe("");
    expect(lines.slice(heading + 2, heading + 5)).toEqual([
      "1. Sign in to your account and open Orders.",
      "2. Choose the order and select Request refund.",
      "3. Print the returns label and post the parcel.",
    ]);
    expect(lines.filter((line) => /^#{1,6} /.test(line))).toHaveLength(5);
    expect(lines.filter((line) => line.startsWith("- "))).toHaveLength(3);
    expect(lines[0]).toBe("# How do I get a refund?");
  });
});

describe("htmlToText: choosing the content", () => {
  it("keeps body text minus chrome when there is no main or article", () => {
    const page = `<body><header><h1>ACME</h1><nav><a href="/">Home</a></nav></header>
      <div class="cookie-banner"><p>We use cookies</p><button>OK</button></div>
      <h1>Reset your password</h1><p>Open Settings.</p><aside>Related</aside>
      <footer>Copyright 2026 ACME Ltd</footer></body>`;
    expect(htmlToText(page)).toBe("# Reset your password\n\nOpen Settings.");
  });

  it("keeps every article, in document order, but not article cards inside chrome", () => {
    const page = `<nav>Menu</nav><article><h2>First</h2><p>One</p></article><p>Between</p>
      <article><h2>Second</h2><p>Two</p></article><aside><article>Related card</article></aside>`;
    expect(htmlToText(page)).toBe("## First\n\nOne\n\n## Second\n\nTwo");
  });

  it("prefers main over articles and body", () => {
    expect(htmlToText("<p>Outside</p><article>Card</article><div role=main><p>Inside</p></div>")).toBe("Inside");
    expect(htmlToText("<p>Outside</p><main><article><p>A</p></article><p>B</p></main>")).toBe("A\n\nB");
  });

  it("falls back to the body when main yields no text", () => {
    const page = `<header>Site</header><main> <div></div> </main><p>Body text</p><footer>Copyright</footer>`;
    expect(htmlToText(page)).toBe("Body text");
    expect(htmlToText(`<main><form><button>Go</button></form></main><h2>Title</h2><p>Text</p>`)).toBe("## Title\n\nText");
  });

  it("keeps every word of a page that is all chrome rather than extract nothing", () => {
    expect(htmlToText("<nav><a href='/'>Only links</a></nav><script>x()</script>")).toBe("Only links");
  });

  it("finds a main inside a form that wraps the whole page", () => {
    expect(htmlToText("<form><nav>Menu</nav><main><p>Article</p></main><button>Save</button></form>")).toBe("Article");
  });

  it("keeps a header or footer inside the article only when it holds a heading", () => {
    const page = `<header><h1>Site name</h1></header><article><header><h1>Title</h1><p>By Ann</p></header>
      <header><a href="#">Share</a></header><p>Text</p><footer><p>Tags: billing</p></footer></article>`;
    expect(htmlToText(page)).toBe("# Title\n\nBy Ann\n\nText");
  });
});

describe("htmlToText: dropped elements", () => {
  it("keeps content classes and drops chrome classes, ids and roles", () => {
    const page = `<main>
      <div class="article-body content"><p>Body</p></div>
      <div class="cookie-policy"><p>Policy</p></div>
      <div class="layout has-sidebar"><p>Layout</p></div>
      <div class="cookie-banner">c1</div><div id="cookieConsent">c2</div><div class="gdpr">c3</div>
      <div class="js-cookie-banner">c4</div><ol class="breadcrumbs"><li>c5</li></ol>
      <div class="site-footer">c6</div><div id="sidebar">c7</div><a class="skip-link" href="#">c8</a>
      <div role="navigation">r1</div><div role="dialog">r2</div><div role="search">r3</div>
      <div role="complementary">r4</div><div role="contentinfo">r5</div><div role="alertdialog">r6</div>
      <select><option>s1</option></select><textarea>s2</textarea><iframe>s3</iframe><dialog>s4</dialog>
    </main>`;
    expect(htmlToText(page)).toBe("Body\n\nPolicy\n\nLayout");
  });

  it("never drops body, main or article for a state class", () => {
    expect(htmlToText(`<body class="has-cookie-banner sidebar"><main class="banner"><p>Text</p></main></body>`)).toBe("Text");
  });

  it("drops hidden and aria-hidden content but keeps hidden=until-found", () => {
    const page = `<main><p>Shown</p><p hidden>Secret</p><div aria-hidden="true">Icon</div>
      <div aria-hidden="false">Visible</div><div hidden="until-found">Answer</div></main>`;
    expect(htmlToText(page)).toBe("Shown\n\nVisible\nAnswer");
  });
});

describe("htmlToText: markers", () => {
  it("numbers each ordered list on its own and honours start", () => {
    // A nested list is a paragraph-level block, hence the blank lines around it.
    const page = `<ol><li>a</li><li>b<ul><li>x</li></ul></li><li>c</li></ol><ol start="4"><li>d</li></ol>`;
    expect(htmlToText(page)).toBe("1. a\n2. b\n\n- x\n\n3. c\n\n4. d");
  });

  it("writes no bare marker for an empty heading or item", () => {
    expect(htmlToText("<h2> </h2><p>Text</p><ul><li></li><li><p>Item</p></li></ul>")).toBe("Text\n\n- Item");
  });

  it("marks every heading level", () => {
    expect(htmlToText("<h1>A</h1><h3>B</h3><h6>C</h6>")).toBe("# A\n\n### B\n\n###### C");
  });
});

describe("htmlToText: tables", () => {
  it("writes the header row first, then one line per row, each cell's whitespace collapsed and its pipes escaped", () => {
    const page = `<p>Plans for every team.</p>
      <table>
        <caption>Prices</caption>
        <thead><tr><th>Plan</th><th>Price</th><th>Seats</th></tr></thead>
        <tbody>
          <tr><td>Team</td><td>$20\n  per month</td><td>10</td></tr>
          <tr><td><p>Pro</p><p>or Pro | Plus</p></td><td>$40<br>billed yearly</td><td><ul><li>50</li><li>more on request</li></ul></td></tr>
        </tbody>
      </table>
      <p>Prices exclude VAT.</p>`;
    expect(htmlToText(page).split("\n")).toEqual([
      "Plans for every team.",
      "",
      "Prices",
      "| Plan | Price | Seats |",
      "| Team | $20 per month | 10 |",
      "| Pro or Pro \\| Plus | $40 billed yearly | 50 more on request |",
      "",
      "Prices exclude VAT.",
    ]);
  });

  it("takes the first row as the header when there is no thead, th cells or not, and leaves out rows of empty cells", () => {
    const page = `<table><tbody><tr><td>Region</td><td>Uptime</td></tr>\n<tr><td>EU</td><td>99.9%</td></tr><tr><td> </td><td></td></tr><tr><td>US</td></tr></tbody></table>`;
    expect(htmlToText(page)).toBe("| Region | Uptime |\n| EU | 99.9% |\n| US |");
  });

  it("reads a table that lays out the page (holding headings or tables, or presentational) as text, and the data tables in it as rows", () => {
    const page = `<table><tr><td><h1>Refunds</h1><p>Within 30 days.</p>
      <table><tr><th>Method</th><th>Days</th></tr><tr><td>Card</td><td>5</td></tr></table></td><td>Contact us</td></tr></table>`;
    expect(htmlToText(page)).toBe("# Refunds\n\nWithin 30 days.\n\n| Method | Days |\n| Card | 5 |\n\nContact us");
    expect(htmlToText(`<table role="presentation"><tr><td>Left</td><td>Right</td></tr></table>`)).toBe("Left Right");
  });
});

describe("htmlToText: limit", () => {
  it("counts only the kept text against maxChars", () => {
    const page = `<nav>${"<a href='#'>link</a>".repeat(500)}</nav><main><p>${"word ".repeat(20)}</p></main>`;
    expect(htmlToText(page, 200)).toBe("word ".repeat(20).trim());
    expect(() => htmlToText(page, 50)).toThrow(LimitExceeded);
  });

  it("handles a deeply nested main without overflowing the stack", () => {
    const depth = 20_000;
    expect(htmlToText(`<nav>Menu</nav><main>${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}</main>`)).toBe("deep");
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

describe("htmlToText: images and figures", () => {
  const ALT = "Screenshot: the Billing tab with the Cancel subscription button";

  it("writes an image's alt text where the image is, inside its paragraph, whitespace collapsed, and chunks it with the paragraph", () => {
    const page = `<main><h1>Cancel a subscription</h1>
      <p>Plans renew every month until they are cancelled. Refunds follow the refund policy for your country.</p>
      <p>Open Settings, then the Billing tab. <img src="/help/img/cancel.png" alt="Screenshot:  the Billing tab
        with the Cancel subscription button" title="Not indexed"> Confirm in the dialog that opens.</p>
      <p>Your plan stays active until the end of the period you paid for, and the data is kept for 30 days.</p></main>`;
    const text = htmlToText(page);
    expect(text.split("\n\n")).toContain(`Open Settings, then the Billing tab. [Image: ${ALT}] Confirm in the dialog that opens.`);
    expect(text).not.toContain("Not indexed");
    const chunks = chunkText(text, 200, 20);
    expect(chunks.length).toBeGreaterThan(2);
    const holder = chunks.find((c) => c.text.includes(`[Image: ${ALT}]`));
    expect(holder?.text).toContain("Open Settings, then the Billing tab.");
    expect(holder?.text).toContain("Confirm in the dialog that opens.");
  });

  it("keeps a figure's caption right after its image's alt text, in one paragraph, wherever the caption is written", () => {
    const after = `<p>Before.</p><figure><p><img src="billing.png" alt="The Billing tab"></p>
      <figcaption>Figure 1: <em>Cancel</em>   subscription</figcaption></figure><p>After.</p>`;
    expect(htmlToText(after)).toBe("Before.\n\n[Image: The Billing tab] [Figure: Figure 1: Cancel subscription]\n\nAfter.");
    const before = `<figure><figcaption>Figure 2: Plans</figcaption><a href="/plans"><img src="p.png" alt="The plans page"></a></figure>`;
    expect(htmlToText(before)).toBe("[Image: The plans page] [Figure: Figure 2: Plans]");
    // Without alt text the caption still stands where the image is.
    expect(htmlToText(`<p>One.</p><figure><img src="x.png"><figcaption>Figure 3: Invoices</figcaption></figure>`)).toBe(
      "One.\n\n[Figure: Figure 3: Invoices]",
    );
  });

  it("skips decorative images, alt text that only names a file, tracking pixels and images in page chrome", () => {
    const page = `<nav><img src="logo.png" alt="ACME logo"></nav><main><p>Open Billing
      <img src="a.png" alt=""><img src="b.png" alt="   "><img src="c.png" alt="Divider" role="presentation">
      <img src="d.png" alt="Arrow" aria-hidden="true"><img src="/img/IMG_2043.png" alt="IMG_2043.png">
      <img src="s.png" alt="screenshot.png"><img src="/i/cancel-button.png" alt="cancel-button">
      <img src="https://t.example/p.gif?u=1" alt="Tracking pixel" width="1" height="1">
      <img src="spacer.gif" alt="Spacer" height="2px"> and <img src="c.png" alt="the Cancel button" width="120"> cancel.</p></main>`;
    expect(htmlToText(page)).toBe("Open Billing and [Image: the Cancel button] cancel.");
  });

  it("keeps an image's alt text in a table cell within its row", () => {
    const page = `<table><tr><th>Icon</th><th>Meaning</th></tr><tr><td><img src="g.png" alt="Gear icon"></td><td>Settings</td></tr></table>`;
    expect(htmlToText(page)).toBe("| Icon | Meaning |\n| [Image: Gear icon] | Settings |");
  });
});
