import fs from "node:fs";
import path from "node:path";
import { parse, type HTMLElement } from "node-html-parser";
import type { FaqArticle } from "./debian-faq";

/**
 * A labeled retrieval set built from the Python FAQ that Debian ships (`apt-get install
 * python3.11-doc`): every section whose heading is a question is a query, the section's own text
 * (without the heading and without its subsections) is the article it should retrieve. A second
 * set beside the Debian FAQ (scripts/bench/debian-faq.ts), written by other people about other things.
 */

export const DEFAULT_PYTHON_FAQ_DIR = "/usr/share/doc/python3.11/html/faq";

export function loadPythonFaq(dir = DEFAULT_PYTHON_FAQ_DIR): FaqArticle[] {
  if (!fs.existsSync(path.join(dir, "index.html"))) {
    throw new Error(
      `The Python FAQ is not installed at ${dir}: run \`apt-get install python3.11-doc\` (the benchmark builds its questions from it).`,
    );
  }
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".html") && f !== "index.html")
    .sort();
  const articles: FaqArticle[] = [];
  files.forEach((file, i) => {
    const root = parse(fs.readFileSync(path.join(dir, file), "utf8"));
    for (const section of root.querySelectorAll("section")) {
      const heading = section.childNodes.find(
        (n): n is HTMLElement => n instanceof Object && "tagName" in n && /^H[1-6]$/.test((n as HTMLElement).tagName),
      );
      if (!heading) continue;
      const question = heading.text.replace(/¶/g, "").replace(/\s+/g, " ").trim();
      if (!question.endsWith("?")) continue;
      const own = section.childNodes.filter(
        (n): n is HTMLElement => n instanceof Object && "tagName" in n && n !== heading && (n as HTMLElement).tagName !== "SECTION",
      );
      const html = own.map((n) => n.outerHTML).join("\n");
      if (parse(html).text.replace(/\s+/g, " ").trim().length < 40) continue;
      // Numbered, not named by the section's id: the id is the question's own words, which would hand it the answer.
      const filename = `py-${file.replace(/\.html$/, "")}-${String(articles.length + 1).padStart(3, "0")}.html`;
      articles.push({ filename, html: `<html><body>${html}</body></html>`, question, chapter: i + 1 });
    }
  });
  return articles;
}
