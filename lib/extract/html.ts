import { parse, NodeType, type Node, type HTMLElement, type TextNode } from "node-html-parser";

// Content a reader never sees; indexing it would pollute retrieval with code and boilerplate.
const SKIPPED = new Set(["head", "title", "script", "style", "noscript", "template", "svg"]);

// Separated by a blank line so downstream chunkers can split on paragraphs.
const PARAGRAPH_BLOCKS = new Set([
  ..."p h1 h2 h3 h4 h5 h6 section article blockquote pre table ul ol dl".split(" "),
  ..."header footer main nav aside figure form fieldset details address hr".split(" "),
]);
const LINE_BLOCKS = new Set("div br li tr dt dd figcaption summary caption".split(" "));
const CELLS = new Set(["td", "th"]);

/** Visible text of an HTML document, one block per line, at most one blank line between blocks. */
export function htmlToText(html: string): string {
  // node-html-parser keeps doctypes and XML declarations as text nodes.
  const source = html.replace(/<!doctype[^>]*>/gi, "").replace(/<\?xml[^>]*\?>/gi, "");
  const root = parse(source, {
    comment: false,
    // Parsed as raw text so a `<` inside a script cannot open phantom elements; dropped in the walk.
    blockTextElements: { script: true, style: true, noscript: true, pre: true },
  });
  const out = new TextBuilder();
  walk(root, out);
  return out
    .toString()
    .replace(/[^\S\n]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+/, "")
    .trimEnd();
}

type Task = { node: Node; inPre: boolean } | { closeWith: number };

// Iterative: a recursive walk overflows the stack on a few thousand nested elements.
function walk(root: Node, out: TextBuilder): void {
  const stack: Task[] = [{ node: root, inPre: false }];
  while (stack.length) {
    const task = stack.pop()!;
    if ("closeWith" in task) {
      out.breakLine(task.closeWith);
      continue;
    }
    const { node, inPre } = task;
    if (node.nodeType === NodeType.TEXT_NODE) {
      const text = (node as TextNode).text;
      if (inPre) out.raw(text.replace(/\u00a0/g, " "));
      else out.inline(text);
      continue;
    }
    if (node.nodeType !== NodeType.ELEMENT_NODE) continue;
    const tag = ((node as HTMLElement).rawTagName ?? "").toLowerCase();
    if (SKIPPED.has(tag)) continue;

    const breaks = PARAGRAPH_BLOCKS.has(tag) ? 2 : LINE_BLOCKS.has(tag) ? 1 : 0;
    if (breaks) {
      out.breakLine(breaks);
      stack.push({ closeWith: breaks });
    } else if (CELLS.has(tag)) {
      out.space();
    }
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, inPre: inPre || tag === "pre" });
  }
}

/** Collapses whitespace the way a browser lays out inline text, except inside <pre>. */
class TextBuilder {
  private parts: string[] = [];
  private last = "\n";
  // Starts high so leading blocks add no newlines at the top.
  private trailingNewlines = 2;

  inline(text: string): void {
    let collapsed = text.replace(/\s+/g, " ");
    if (this.last === " " || this.last === "\n") collapsed = collapsed.replace(/^ /, "");
    this.push(collapsed);
  }

  raw(text: string): void {
    this.push(text);
  }

  space(): void {
    if (this.last !== " " && this.last !== "\n") this.push(" ");
  }

  /** Ensures the output ends with `count` newlines, so adjacent blocks do not stack breaks. */
  breakLine(count: number): void {
    if (count > this.trailingNewlines) this.push("\n".repeat(count - this.trailingNewlines));
  }

  toString(): string {
    return this.parts.join("");
  }

  private push(text: string): void {
    if (!text) return;
    this.parts.push(text);
    this.last = text[text.length - 1]!;
    const newlines = text.length - text.replace(/\n+$/, "").length;
    this.trailingNewlines = newlines === text.length ? this.trailingNewlines + newlines : newlines;
  }
}
