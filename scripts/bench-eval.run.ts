import { it } from "vitest";
import { createAgent } from "@/lib/db/agents";
import { agentChunkCount } from "@/lib/db/documents";
import { embedder } from "@/lib/embeddings/configured";
import { importPairs } from "@/lib/evaluation/labeled-pairs";
import { EVAL_BATCH, evaluate } from "@/lib/evaluation/run";
import { ingestFile } from "@/lib/ingest/pipeline";

// Sizes can be changed from the environment: BENCH_DOCS=500 BENCH_PAIRS=2000 npm run bench:eval
const DOCS = Number(process.env.BENCH_DOCS ?? 250);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** Deterministic, so every run of the benchmark sees the same set. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(42);
const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
const SYLLABLES = ["ka", "lo", "mi", "ter", "van", "sul", "dor", "pha", "qui", "ren", "bax", "tol", "ne", "gri", "mos", "cal", "zen", "fu"];
const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(SYLLABLES)).join("");
const COMMON = Array.from({ length: 400 }, word);

/** A document about its own few topic words, padded with common words, ~2,000 characters. */
function article(topic: string[]): string {
  const sentences: string[] = [];
  while (sentences.join(" ").length < 2000) {
    const words = Array.from({ length: 12 }, () => (random() < 0.3 ? pick(topic) : pick(COMMON)));
    sentences.push(`${words.join(" ")}.`);
  }
  return sentences.join(" ");
}

const ms = (t: number) => `${t.toFixed(0)} ms`;

it(`evaluates ${PAIRS} pairs`, async () => {
  const agent = createAgent({ name: `bench ${Date.now()}`, tools: ["document_search"] });
  const topics = Array.from({ length: DOCS }, () => Array.from({ length: 8 }, word));
  let t = performance.now();
  for (const [i, topic] of topics.entries()) {
    await ingestFile(
      agent.id,
      { filename: `article-${i}.md`, bytes: new TextEncoder().encode(article(topic)) },
      { chunkSize: 800, chunkOverlap: 100 },
    );
  }
  const ingestMs = performance.now() - t;

  const queries = new Set<string>();
  const rows = [];
  while (rows.length < PAIRS) {
    const doc = Math.floor(random() * DOCS);
    const query = `${pick(topics[doc])} ${pick(topics[doc])} ${pick(COMMON)}`;
    if (queries.has(query)) continue;
    queries.add(query);
    rows.push({ row: rows.length + 1, query, expected: `article-${doc}.md` });
  }
  const report = importPairs(agent.id, rows);
  if (report.accepted !== PAIRS) throw new Error(`only ${report.accepted} pairs were accepted: ${JSON.stringify(report.rejected[0])}`);

  t = performance.now();
  await embedder().embed([...queries]);
  const embedMs = performance.now() - t;

  const times: number[] = [];
  let last;
  for (let r = 0; r < RUNS; r++) {
    t = performance.now();
    last = await evaluate(agent.id, 5);
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const row = (label: string, value: string) => `  ${label.padEnd(26)}${value}`;
  const r = last!.recall_at_k!;
  const lines = [
    "",
    `bench:eval  ${PAIRS} pairs, ${DOCS} documents, ${agentChunkCount(agent.id)} chunks, model ${embedder().model}, ${EVAL_BATCH} queries per batch`,
    row("ingest of the set", ms(ingestMs)),
    row(`evaluate ${PAIRS} pairs`, `median ${ms(median)} over ${RUNS} runs (min ${ms(sorted[0])}, max ${ms(sorted.at(-1)!)})`),
    row("per pair", `${(median / PAIRS).toFixed(2)} ms, ${((PAIRS / median) * 1000).toFixed(0)} pairs/s`),
    row("embedding the queries", `${ms(embedMs)} of that (all ${PAIRS} queries embedded alone)`),
    row(
      "figures of the last run",
      `recall@1 ${r["1"]?.toFixed(3)}, recall@5 ${r["5"]?.toFixed(3)}, recall@20 ${r["20"]?.toFixed(3)}, MRR ${last!.mrr?.toFixed(3)}`,
    ),
    "",
  ];
  console.log(lines.join("\n"));
});
