import { describe, expect, it } from "vitest";
import { htmlMetaTags, markdownFrontMatter } from "./file-metadata";

describe("metadata a file carries", () => {
  it("reads a Markdown file's front matter and takes it out of the text", () => {
    const md = "---\nproduct: router\nfirmware: 3\nbeta: false\nreleased: 2026-03-01\ntags: [setup, wifi]\n---\n\n# Setup\n\nPlug it in.";
    expect(markdownFrontMatter(md)).toEqual({
      text: "# Setup\n\nPlug it in.",
      metadata: { product: "router", firmware: 3, beta: false, released: "2026-03-01", tags: ["setup", "wifi"] },
    });
  });

  it("leaves a first --- block that is not a YAML mapping in the text, and skips keys a filter could not use", () => {
    for (const md of [
      "---\nJust a rule above.\n---\nText.",
      "---\n- a\n- b\n---\nText.",
      "---\nkey: [unclosed\n---\nText.",
      "Text.\n---\na: 1\n---",
    ])
      expect(markdownFrontMatter(md)).toEqual({ text: md, metadata: {} });
    const odd = markdownFrontMatter("---\nfilename: x.md\nnested: {a: 1}\nempty: ''\nok key: 1\nfine: yes\n---\nText.");
    expect(odd).toEqual({ text: "Text.", metadata: { fine: "yes" } });
  });

  it("reads an HTML page's meta tags from its head, keywords as a list, without the tags for browsers and crawlers", () => {
    const html = `<html><head><title>T</title>
      <meta name="product" content="modem"><meta name="keywords" content="dsl, cable ,">
      <meta name="viewport" content="width=device-width"><meta name="description" content="About modems">
      <meta property="og:title" content="Modems"><meta name="locale" content="de &amp; at">
      <meta name="firmware" content="3"><meta name="code" content="0042"><meta name="beta" content="true">
      </head><body><meta name="late" content="in the body"><p>Text</p></body></html>`;
    expect(htmlMetaTags(html)).toEqual({
      product: "modem",
      keywords: ["dsl", "cable"],
      locale: "de & at",
      firmware: 3,
      code: "0042",
      beta: true,
    });
  });
});
