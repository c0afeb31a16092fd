import fs from "node:fs";
import path from "node:path";
import { parse, type HTMLElement } from "node-html-parser";

/**
 * A labeled retrieval set built from the Debian FAQ that Debian ships (`apt-get install
 * debian-faq`): every section heading that is a question is a query, the section's own text
 * (without the heading and without its subsections) is the article it should retrieve.
 */

export const DEFAULT_FAQ_DIR = "/usr/share/doc/debian/FAQ";

export interface FaqArticle {
  /** e.g. "faq-07.2-pkgname.html": unique, sortable, the section number and anchor. */
  filename: string;
  /** HTML of the section body, without heading and subsections, ingested like an upload. */
  html: string;
  question: string;
  /** Chapter number (1-based); the tune/check split alternates chapters. */
  chapter: number;
}

export interface FaqSet {
  articles: FaqArticle[];
  /** Questions whose chapter is odd: the half used while tuning. */
  tune: FaqArticle[];
  /** Questions whose chapter is even: reported, never tuned on. */
  check: FaqArticle[];
}

/** Chapters in reading order, taken from the FAQ's own table of contents. */
function chapterFiles(dir: string): string[] {
  const index = parse(fs.readFileSync(path.join(dir, "index.en.html"), "utf8"));
  const files: string[] = [];
  for (const a of index.querySelectorAll("a")) {
    const href = (a.getAttribute("href") ?? "").split("#")[0];
    if (/^[a-z-]+\.en\.html$/.test(href) && href !== "index.en.html" && !files.includes(href)) files.push(href);
  }
  return files;
}

const HEADING = /^(\d+(?:\.\d+)+)\.\s+(.*)$/s;

export function loadDebianFaq(dir = DEFAULT_FAQ_DIR): FaqSet {
  if (!fs.existsSync(path.join(dir, "index.en.html"))) {
    throw new Error(
      `The Debian FAQ is not installed at ${dir}: run \`apt-get install debian-faq\` (the benchmark builds its questions from it).`,
    );
  }
  const articles: FaqArticle[] = [];
  chapterFiles(dir).forEach((file, i) => {
    const root = parse(fs.readFileSync(path.join(dir, file), "utf8"));
    for (const section of root.querySelectorAll("div.section")) {
      const title = section.querySelector(".titlepage .title");
      if (!title) continue;
      const heading = title.text.replace(/\s+/g, " ").trim();
      const m = HEADING.exec(heading);
      if (!m || !m[2].includes("?")) continue; // "Feedback", "Authors": headings, not questions
      const body = ownContent(section);
      if (body.text.replace(/\s+/g, " ").trim().length < 40) continue; // only an intro to subsections
      const number = m[1]
        .split(".")
        .map((n, j) => (j === 0 ? n.padStart(2, "0") : n))
        .join(".");
      const anchor = title.querySelector("a[id]")?.getAttribute("id") ?? "section";
      articles.push({
        filename: `faq-${number}-${anchor}.html`,
        html: `<html><body>${body.html}</body></html>`,
        question: m[2].trim(),
        chapter: i + 1,
      });
    }
  });
  return {
    articles,
    tune: articles.filter((a) => a.chapter % 2 === 1),
    check: articles.filter((a) => a.chapter % 2 === 0),
  };
}

/** The section's children except its title and nested sections, with cross-reference titles cut. */
function ownContent(section: HTMLElement): { html: string; text: string } {
  const parts: HTMLElement[] = section.childNodes.filter(
    (n): n is HTMLElement =>
      n instanceof Object &&
      "classList" in n &&
      !(n as HTMLElement).classList.contains("titlepage") &&
      !(n as HTMLElement).classList.contains("section"),
  );
  const holder = parse("<div></div>").firstChild as HTMLElement;
  for (const p of parts) holder.appendChild(p.clone());
  // "Section 12.1, “What other documentation exists…?”" quotes another question verbatim, which
  // would label that article as an answer to it; keep only "Section 12.1".
  for (const xref of holder.querySelectorAll("a.xref")) {
    const short = /^(Section\s[\d.]+|Chapter\s\d+)/.exec(xref.text.trim());
    if (short) xref.set_content(short[1]);
  }
  return { html: holder.innerHTML, text: holder.text };
}
