// `npm run bench:tables [-- --size 800 --overlap 100]`: what repeating a table's header with the
// chunks of its rows (lib/core/tables.ts) does to retrieval, on a table-heavy labeled set of our
// own. Six products, each with five articles whose tables share the product's 40 plan names as
// rows (price list, SLA, limits, support, data retention: only the columns tell them apart), a few
// paragraphs around each table: 30 articles. The questions name a row and a column ("What is the
// monthly price of the Kadime plan?"), each labeled with the article whose table answers it. The
// articles are extracted as uploads are (HTML to text) and chunked by the app's chunker; the local
// embedder embeds them in-process, its query weighting counting the set's own chunks as an agent's
// would, and every chunk is ranked exactly by cosine distance. Four ways of indexing the rows:
//   a_no_header   the chunks as made, indexed by their text alone (the header only in the first chunk)
//   b_header      the same chunks indexed with their context (the header of their table) first:
//                 indexedText, what the app's keyword index holds
//   c_pairs       each row written as "column: value" pairs instead of pipe cells, then chunked
//   d_pairs_index the chunks of b, each indexed with its rows as "column: value" pairs (text
//                 unchanged): embeddedText, what the app embeds
// The app's figures are d's vector ones and b's BM25 ones (the `app.*` lines name them).
// Prints `key: value` lines: chunks, and recall@1, recall@3 and MRR (rank of the expected article's
// first chunk among all chunks, no k limit) for the vector ranking and for a BM25 baseline.
import path from "node:path";
import { parseArgs } from "node:util";
import { chunkText, embeddedText, indexedText, type Chunk } from "../../lib/core/chunking";
import { newFeatureCounts } from "../../lib/embeddings";
import { LocalEmbedder } from "../../lib/embeddings/local/embedder";
import { htmlToText } from "../../lib/extract/html.mjs";
import { Bm25Index } from "./bm25";
import { quality, rankOf } from "./metrics";

const { values } = parseArgs({ options: { size: { type: "string", default: "800" }, overlap: { type: "string", default: "100" } } });
const SIZE = Number(values.size);
const OVERLAP = Number(values.overlap);
const ROWS = 40;
const QUESTIONS_PER_ARTICLE = 4;

let seed = 20240611; // mulberry32, as the other benches: the same set on every run
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

const PRODUCTS = ["Acme Mail", "Orbit Drive", "Pixel CRM", "Harbor Chat", "Summit Docs", "Lumen Analytics"];

interface TableKind {
  title: string;
  intro: string;
  columns: string[];
  cells: () => string[];
}
const KINDS: TableKind[] = [
  {
    title: "price list",
    intro: "Every plan is billed per workspace. Taxes are added at checkout, and a change of plan is charged pro rata.",
    columns: ["Monthly price", "Annual price", "Seats included"],
    cells: () => [`$${int(4, 99)}`, `$${int(40, 990)}`, `${int(1, 500)} seats`],
  },
  {
    title: "service level agreement",
    intro: "We measure availability every minute from three regions. A missed target is credited on the next invoice.",
    columns: ["Uptime guarantee", "First response time", "Service credit"],
    cells: () => [pick(["99.0%", "99.5%", "99.9%", "99.95%", "99.99%"]), `${int(1, 48)} hours`, `${int(5, 50)}% of the monthly fee`],
  },
  {
    title: "usage limits",
    intro: "Limits apply per workspace and reset every day at midnight UTC. Requests over a limit are refused, not queued.",
    columns: ["Storage quota", "API requests per minute", "Maximum file size"],
    cells: () => [`${int(1, 2000)} GB`, `${int(60, 20000)} requests`, `${int(5, 5000)} MB`],
  },
  {
    title: "support options",
    intro: "Support answers in English, German and French. Urgent issues reported by phone are handled first.",
    columns: ["Support channel", "Support hours", "Escalation contact"],
    cells: () => [
      pick(["Email", "Email and chat", "Phone, email and chat", "Community forum"]),
      pick(["Business days 9-17 CET", "24/7", "Weekdays 8-20 CET", "Business days 9-17 ET"]),
      pick(["Team lead", "Account manager", "Duty engineer", "Customer success manager"]),
    ],
  },
  {
    title: "data retention",
    intro: "Backups are encrypted and stored in a second data centre. Deleted data is purged once its retention ends.",
    columns: ["Backup frequency", "Retention period", "Data residency"],
    cells: () => [
      pick(["Hourly", "Every 6 hours", "Daily", "Weekly"]),
      `${int(7, 3650)} days`,
      pick(["EU only", "US only", "EU or US", "Any region"]),
    ],
  },
];

// Made-up plan names of three syllables: one word each, as a real plan's name is, and not in the word vectors.
const SYLLABLES = [..."bdfgklmnprstvz"].flatMap((c) => [..."aeiou"].map((v) => c + v));
const used = new Set<string>();
function planName(): string {
  for (;;) {
    const word = Array.from({ length: 3 }, () => pick(SYLLABLES)).join("");
    const name = word[0].toUpperCase() + word.slice(1);
    if (!used.has(name)) return (used.add(name), name);
  }
}

interface Article {
  filename: string;
  html: string;
  /** Each row's cells, plan name first. */
  rows: string[][];
  columns: string[];
}
interface Question {
  query: string;
  article: number;
}

const articles: Article[] = [];
const questions: Question[] = [];
for (const product of PRODUCTS) {
  const plans = Array.from({ length: ROWS }, planName);
  for (const kind of KINDS) {
    const columns = ["Plan", ...kind.columns];
    const rows = plans.map((plan) => [plan, ...kind.cells()]);
    const cells = (tag: string, r: string[]) => `<tr>${r.map((c) => `<${tag}>${c}</${tag}>`).join("")}</tr>`;
    const html = `<!doctype html><html><body><main>
      <h1>${product} ${kind.title}</h1>
      <p>This article lists the ${kind.title} of every ${product} plan. ${kind.intro}</p>
      <p>Plans are named when the workspace is created and can be changed by an owner at any time.</p>
      <table><thead>${cells("th", columns)}</thead><tbody>${rows.map((r) => cells("td", r)).join("")}</tbody></table>
      <p>Questions about the ${kind.title} of ${product} go to the support team of your region.</p>
    </main></body></html>`;
    const article =
      articles.push({ filename: `${product.toLowerCase().replace(" ", "-")}-${kind.title.replace(/ /g, "-")}.html`, html, rows, columns }) -
      1;
    for (let q = 0; q < QUESTIONS_PER_ARTICLE; q++) {
      const row = pick(rows);
      const column = pick(kind.columns);
      questions.push({ query: `What is the ${column.toLowerCase()} of the ${row[0]} plan?`, article });
    }
  }
}

const cellsOf = (row: string) => row.slice(2, -2).split(" | ");

/** Each table row as "column: value" pairs on one line; the header line (the table's first) is left out. */
function asPairs(text: string, columns: string[]): string {
  let header: string[] | null = columns;
  return text
    .split("\n")
    .flatMap((line) => {
      if (!line.startsWith("| ")) return [line];
      if (header === null || cellsOf(line)[0] === columns[0]) return ((header = columns), []);
      return [
        `${cellsOf(line)
          .map((c, k) => `${header![k]}: ${c}`)
          .join("; ")}.`,
      ];
    })
    .join("\n");
}

interface Variant {
  name: string;
  chunks: { article: number; indexed: string }[];
  /** What queries are weighted by (the chunks' features counted); the embedded texts when left out. */
  counted?: string[];
}
const texts = articles.map((a) => htmlToText(a.html));
const chunked = (text: (i: number) => string, index: (c: Chunk) => string) =>
  articles.flatMap((_, i) => chunkText(text(i), SIZE, OVERLAP, "boundary").map((c) => ({ article: i, indexed: index(c) })));
const variants: Variant[] = [
  {
    name: "a_no_header",
    chunks: chunked(
      (i) => texts[i],
      (c) => indexedText({ text: c.text }),
    ),
  },
  { name: "b_header", chunks: chunked((i) => texts[i], indexedText) },
  { name: "c_pairs", chunks: chunked((i) => asPairs(texts[i], articles[i].columns), indexedText) },
  { name: "d_pairs_index", chunks: chunked((i) => texts[i], embeddedText) },
  // The app: embedded as d, queries weighted by counts over the keyword-indexed form (b), the
  // form counts were kept in before rows were embedded as pairs (no recount on an upgrade).
  {
    name: "e_app",
    chunks: chunked((i) => texts[i], embeddedText),
    counted: chunked((i) => texts[i], indexedText).map((c) => c.indexed),
  },
];

const root = path.resolve(import.meta.dirname, "../..");
// The word-vector cache the tests build once: converting GloVe again would take most of the run.
const embedder = new LocalEmbedder({ cacheDir: path.join(root, "node_modules/.cache/kb-inspector-test") });
const f3 = (x: number) => x.toFixed(3);
const out = (key: string, value: string | number) => console.log(`${key}: ${value}`);

out("articles", articles.length);
out("rows_per_table", ROWS);
out("questions", questions.length);
out("chunk_size", SIZE);
out("chunk_overlap", OVERLAP);
out("embedder", embedder.model);
out("app.vector", "e_app");
out("app.keyword", "b_header");
const started = performance.now();
for (const v of variants) {
  const texts = v.chunks.map((c) => c.indexed);
  const vectors = await embedder.embed(texts);
  // Queries are weighted by the set's own chunks, as the app weights them by an agent's.
  const corpus = { chunks: texts.length, df: newFeatureCounts() };
  await embedder.countFeatures(v.counted ?? texts, corpus.df);
  const queries = await embedder.embedQueries(
    questions.map((q) => q.query),
    corpus,
  );
  const norms = vectors.map((x) => Math.hypot(...x));
  const vectorRanks = queries.map((q, i) => {
    const qn = Math.hypot(...q);
    const distance = vectors.map((x, c) => 1 - x.reduce((s, xi, k) => s + xi * q[k], 0) / (norms[c] * qn || 1));
    const order = distance.map((_, c) => c).sort((a, b) => distance[a] - distance[b] || a - b);
    return rankOf(order, (c) => v.chunks[c].article === questions[i].article);
  });
  const bm25 = new Bm25Index(texts);
  const keywordRanks = questions.map((q) => rankOf(bm25.rank(q.query), (c) => v.chunks[c].article === q.article));
  out(`${v.name}.chunks`, texts.length);
  for (const [ranking, ranks] of [
    ["vector", vectorRanks],
    ["bm25", keywordRanks],
  ] as const) {
    const q = quality(ranks, [1, 3]);
    out(`${v.name}.${ranking}.recall_at_1`, f3(q.recall[1]));
    out(`${v.name}.${ranking}.recall_at_3`, f3(q.recall[3]));
    out(`${v.name}.${ranking}.mrr`, f3(q.mrr));
  }
}
out("took_s", ((performance.now() - started) / 1000).toFixed(1));
