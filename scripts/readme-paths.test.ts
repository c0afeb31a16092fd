import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

/** The repository's own folders: a path that starts with one of them names a file or folder here. */
const FOLDERS = ["app", "components", "lib", "pages", "scripts", "e2e", "test", "demo", "public", ".ci"];
const EXTENSIONS = ["ts", "tsx", "mts", "mjs", "cjs", "js", "json", "md", "csv", "jsonl", "html", "css", "sh", "yml", "yaml"];

const folderPath = new RegExp(`(?<![\\w./$<>{}-])(?:${FOLDERS.map((f) => f.replace(".", "\\.")).join("|")})/[^\\s\`'"(),;|]*`, "g");
const filePath = new RegExp(`(?<![\\w./$<>{}-])[\\w.@\\[\\]-]+(?:/[\\w.@\\[\\]*-]+)+\\.(?:${EXTENSIONS.join("|")})(?![\\w/])`, "g");

/** README.md and every Markdown file under docs/, as paths from the repository's root. */
export function docFiles(): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".md")) found.push(rel);
    }
  };
  if (fs.existsSync(path.join(root, "docs"))) walk("docs");
  return found;
}

/** Every repository path a text cites (in backticks or not), with the line it is on. */
export function citedPaths(text: string): { path: string; line: number }[] {
  const found: { path: string; line: number }[] = [];
  text.split("\n").forEach((content, i) => {
    const seen = new Set<string>();
    for (const re of [folderPath, filePath]) {
      for (const [match] of content.matchAll(re)) {
        const p = match.replace(/[.:…]+$/, "");
        if (!seen.has(p)) found.push({ path: p, line: i + 1 });
        seen.add(p);
      }
    }
  });
  return found;
}

/**
 * The path from the repository's root that `p`, cited in `file`, names: a path that starts with
 * `./` or `../` is relative to the file's folder (a Markdown link in docs/), any other is from the root.
 */
function resolve(p: string, file: string): string {
  return p.startsWith("./") || p.startsWith("../") ? path.posix.normalize(path.posix.join(path.posix.dirname(file), p)) : p;
}

/** True when the path exists; a `*` in its last part must match at least one file. */
function exists(p: string, file = "README.md"): boolean {
  const rel = resolve(p, file);
  if (rel.startsWith("../")) return false;
  if (!rel.includes("*")) return fs.existsSync(path.join(root, rel));
  const dir = path.join(root, path.dirname(rel));
  const pattern = new RegExp(
    `^${path
      .basename(rel)
      .split("*")
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return fs.existsSync(dir) && fs.readdirSync(dir).some((name) => pattern.test(name));
}

const missingIn = (text: string, file = "README.md") =>
  citedPaths(text)
    .filter((c) => !exists(c.path, file))
    .map((c) => `${file}:${c.line}: ${c.path}`);

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { content: string; line: number }[] {
  let fenced = false;
  const lines: { content: string; line: number }[] = [];
  text.split("\n").forEach((content, i) => {
    if (/^\s*(```|~~~)/.test(content)) fenced = !fenced;
    else if (!fenced) lines.push({ content, line: i + 1 });
  });
  return lines;
}

/** The anchors GitHub gives a Markdown text's headings (lower case, punctuation dropped, spaces as `-`, repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const { content } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(content);
    if (!heading) continue;
    const plain = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*~]/g, "");
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = counts.get(base) ?? 0;
    anchors.add(n === 0 ? base : `${base}-${n}`);
    counts.set(base, n + 1);
  }
  return anchors;
}

/**
 * Every relative Markdown link of a text (`[text](target)`, images too) whose file does not exist,
 * or whose `#anchor` is no heading of the Markdown file it names. A link is read from the folder of
 * the file it is in; `read` gives the text of a file from the root (`""` for one that is not
 * Markdown), or null when there is no such file.
 */
export function brokenLinks(text: string, file: string, read: (rel: string) => string | null): string[] {
  const broken: string[] = [];
  for (const { content, line } of proseLines(text)) {
    for (const [, target] of content.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [name, anchor] = target.split("#", 2) as [string, string | undefined];
      const rel = name === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), name));
      const body = rel.startsWith("../") ? null : read(rel);
      if (body === null) broken.push(`${file}:${line}: ${target} (no such file)`);
      else if (anchor !== undefined && rel.endsWith(".md") && !headingAnchors(body).has(anchor))
        broken.push(`${file}:${line}: ${target} (no such heading)`);
    }
  }
  return broken;
}

const readRepoFile = (rel: string): string | null => {
  const full = path.join(root, rel);
  if (!fs.existsSync(full)) return null;
  return fs.statSync(full).isFile() && rel.endsWith(".md") ? fs.readFileSync(full, "utf8") : "";
};

describe("the paths README.md and docs/ cite", () => {
  const files = docFiles();
  const texts = new Map(files.map((f) => [f, fs.readFileSync(path.join(root, f), "utf8")]));

  it("all exist in the repository", () => {
    expect(files).toContain("README.md");
    expect(files.filter((f) => f.startsWith("docs/")).length).toBeGreaterThan(0);
    expect(files.flatMap((f) => missingIn(texts.get(f)!, f))).toEqual([]);
  });

  it("are found wherever the docs name them: test files, folders, commands and globs", () => {
    const cited = new Set(files.flatMap((f) => citedPaths(texts.get(f)!).map((c) => c.path)));
    expect(cited.size).toBeGreaterThan(40);
    for (const p of [
      "lib/ingest/races.test.ts",
      "e2e/soak.spec.ts",
      "lib/ingest/",
      "scripts/bench/hnsw.mjs",
      "demo/*.md",
      "app/api/agents/[id]/documents/route.ts",
    ]) {
      expect(cited, p).toContain(p);
    }
  });

  it("reports a path that is gone, and leaves URLs, API routes and data directories alone", () => {
    const text = [
      "| a race | what happens | `lib/ingest-races.test.ts`, `e2e/races.spec.ts` |",
      "see lib/gone/away.ts. and `node scripts/nowhere.mjs --x`, or src/old/file.tsx",
      "`POST /api/agents/{id}/documents`, http://localhost:3000/agents/1/documents/search, `$DATA_DIR/chroma/x.json`, `<DATA_DIR>/chroma/unclean-restarts`",
    ].join("\n");
    expect(missingIn(text)).toEqual([
      "README.md:1: lib/ingest-races.test.ts",
      "README.md:2: lib/gone/away.ts",
      "README.md:2: scripts/nowhere.mjs",
      "README.md:2: src/old/file.tsx",
    ]);
  });

  it("reads a path that starts with ../ in a page of docs/ from that page's folder", () => {
    const text = "[the README](../README.md), `lib/ingest/races.test.ts`, [gone](../lib/gone.ts), ../../outside.md";
    expect(missingIn(text, "docs/operations.md")).toEqual([
      "docs/operations.md:1: ../lib/gone.ts",
      "docs/operations.md:1: ../../outside.md",
    ]);
  });
});

describe("the links between README.md and docs/", () => {
  it("land on a file and a heading that exist", () => {
    const broken = docFiles().flatMap((f) => brokenLinks(readRepoFile(f)!, f, readRepoFile));
    expect(broken).toEqual([]);
  });

  it("are checked for their file and their heading, in code neither", () => {
    const pages: Record<string, string> = {
      "docs/a.md": "# A\n\n## What happens when...\n\n## Moving `npm run x` (it)\n\n## Twice\n\n## Twice\n\n```ini\n# not a heading\n```\n",
    };
    const read = (f: string) => pages[f] ?? readRepoFile(f);
    const text = [
      "[ok](docs/a.md#what-happens-when) [ok](docs/a.md#moving-npm-run-x-it) [ok](docs/a.md#twice-1) [ok](https://example.com/x#y)",
      "[gone](docs/gone.md) [no heading](docs/a.md#not-a-heading) [self](#nowhere) `[in code](docs/none.md)`",
      "```",
      "[in a fence](docs/none.md)",
      "```",
    ].join("\n");
    expect(brokenLinks(text, "README.md", read)).toEqual([
      "README.md:2: docs/gone.md (no such file)",
      "README.md:2: docs/a.md#not-a-heading (no such heading)",
      "README.md:2: #nowhere (no such heading)",
    ]);
  });
});
