// `npm run bench:quality`: retrieval quality of the local embedder (and variants) against BM25
// on a labeled set built at run time from the Debian FAQ (`apt-get install debian-faq`), through
// the app's own ingest and search code, on a real Chroma started in a temporary directory.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadDebianFaq, type FaqSet } from "./bench/debian-faq";
import { startChroma } from "./chroma-server.mjs";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-"));
let stopChroma: (() => Promise<void>) | null = null;
const cleanup = async () => {
  await stopChroma?.();
  fs.rmSync(tmp, { recursive: true, force: true });
};
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

const pct = (x: number) => x.toFixed(3);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

async function main() {
  let faq: FaqSet;
  try {
    faq = loadDebianFaq();
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
  const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
  stopChroma = chroma.stop;
  Object.assign(process.env, {
    DATA_DIR: path.join(tmp, "data"),
    CHROMA_URL: chroma.url,
    CHROMA_COLLECTION_PREFIX: "bench",
    EMBEDDING_PROVIDER: "local",
    KB_DEMO: "0",
  });
  // Imported only now: lib/ reads the environment on first use.
  const { LocalEmbedder, LOCAL_SPEC, STOPWORDS, stem } = await import("../lib/embeddings/local/embedder");
  const { WordVectors } = await import("../lib/embeddings/local/word-vectors");
  const { indexArticles, midWordChunks, rankQuestions, rankQuestionsInMode, rankWithBm25, splitQuality, storedChunks } =
    await import("./bench/run");
  const { chromaAddThroughput, corpusStatsCost, embedMicros } = await import("./bench/throughput");
  const { CHUNK_STRATEGIES, DEFAULT_CHUNK_STRATEGY } = await import("../lib/core/chunking");
  type Spec = typeof LOCAL_SPEC;

  const version = spawnSync("dpkg-query", ["-W", "-f=${Version}", "debian-faq"], { encoding: "utf8" }).stdout || "?";
  const { articles } = faq;
  const tuneSet = new Set(faq.tune.map((a) => a.filename));
  console.log(`Debian FAQ ${version}: ${articles.length} questions, each labeled with the article under it; chunks of 800/100 characters.`);
  console.log(
    `Split: "tune" = questions of odd chapters (${faq.tune.length}), "check" = even chapters (${faq.check.length}); choices were made on tune only.\n`,
  );

  // Start-up: the first start with a DATA_DIR converts the package's JSON once; later starts load the cache.
  const rssBefore = process.memoryUsage().rss;
  const main = new LocalEmbedder({ log: () => {} });
  await main.ready();
  const info = main.loadInfo!;
  const reload = performance.now();
  WordVectors.load(info.file);
  const reloadMs = performance.now() - reload;
  console.log(
    `Start-up of ${main.model}: first start converts GloVe once in ${(info.conversion!.ms / 1000).toFixed(1)} s ` +
      `(process peak RSS ${info.conversion!.peakRssMB} MB, was ${mb(rssBefore)} before); cache ${mb(info.bytes)}, ` +
      `loaded by later starts in ${reloadMs.toFixed(0)} ms (${info.vectors.count} words).\n`,
  );

  // `--only chunking`: the chunking table alone (a few minutes less).
  const onlyChunking = process.argv.includes("--only") && process.argv.includes("chunking");
  const variants: { label: string; spec: Spec; unweighted?: boolean }[] = onlyChunking
    ? [{ label: "local default", spec: LOCAL_SPEC }]
    : [
        { label: "local default", spec: LOCAL_SPEC },
        { label: "default, queries not weighted by the agent", spec: LOCAL_SPEC, unweighted: true },
        { label: "v1: lexical only, 768 (old default)", spec: { version: 1, lexicalDimension: 768, semanticWeight: 0 } },
        { label: "lexical only, 1024", spec: { ...LOCAL_SPEC, lexicalDimension: 1024, semanticWeight: 0 } },
        { label: "GloVe SIF part only", spec: { ...LOCAL_SPEC, lexicalDimension: 0, semanticWeight: 1 } },
        { label: "semantic weight 0.15", spec: { ...LOCAL_SPEC, semanticWeight: 0.15 } },
        { label: "semantic weight 0.45", spec: { ...LOCAL_SPEC, semanticWeight: 0.45 } },
        { label: "default recipe at 768", spec: { ...LOCAL_SPEC, lexicalDimension: 668 } },
        { label: "default recipe at 1536", spec: { ...LOCAL_SPEC, lexicalDimension: 1436 } },
        { label: "default recipe at 4096", spec: { ...LOCAL_SPEC, lexicalDimension: 3996 } },
        { label: "default recipe, 4 probes per feature", spec: { ...LOCAL_SPEC, probes: 4 } },
        { label: "default recipe, 8 probes per feature", spec: { ...LOCAL_SPEC, probes: 8 } },
        ...[1, 2, 3].map((seed) => ({ label: `default, hash seed ${seed}`, spec: { ...LOCAL_SPEC, seed } })),
      ];

  // Chunking: both strategies at the same sizes and overlaps, same questions, the default embedder.
  console.log(`Chunking strategies (${main.model}, ${articles.length} questions; chunk size / overlap / strategy):`);
  const chunkHeader = `${"size".padStart(5)} ${"overlap".padStart(7)} ${"strategy".padEnd(9)} ${"chunks".padStart(6)} ${"mid-word".padStart(8)}   R@1   R@3   R@5  R@10   MRR | tune R@3 | check R@3`;
  console.log(chunkHeader);
  console.log("-".repeat(chunkHeader.length));
  let setNo = 0;
  for (const size of [400, 800, 1200]) {
    for (const overlap of [0, 100]) {
      for (const strategy of CHUNK_STRATEGIES) {
        const set = await indexArticles(`chunking ${setNo++}`, articles, main, {
          chunkSize: size,
          chunkOverlap: overlap,
          chunkStrategy: strategy,
        });
        const q = splitQuality(await rankQuestions(set, articles, main), articles, tuneSet);
        const damaged = midWordChunks(set);
        console.log(
          `${String(size).padStart(5)} ${String(overlap).padStart(7)} ${(strategy + (strategy === DEFAULT_CHUNK_STRATEGY && size === 800 && overlap === 100 ? "*" : "")).padEnd(9)} ` +
            `${String(set.chunkCount).padStart(6)} ${String(damaged).padStart(8)} ${pct(q.all.recall[1])} ${pct(q.all.recall[3])} ${pct(q.all.recall[5])} ${pct(q.all.recall[10])} ${pct(q.all.mrr)} |` +
            `    ${pct(q.tune.recall[3])} |     ${pct(q.check.recall[3])}`,
        );
      }
    }
  }
  console.log("* the default. mid-word: chunks that start or end inside a word.\n");
  if (onlyChunking) return;

  const line = (label: string, dim: string, q: ReturnType<typeof splitQuality>, micros: string) =>
    console.log(
      `${label.padEnd(44)} ${dim.padStart(5)} ${pct(q.all.recall[1])} ${pct(q.all.recall[3])} ${pct(q.all.recall[5])} ${pct(q.all.recall[10])} ${pct(q.all.mrr)} |` +
        `     ${pct(q.tune.recall[3])} ${pct(q.tune.mrr)} |      ${pct(q.check.recall[3])} ${pct(q.check.mrr)} | ${micros.padStart(8)}`,
    );

  const results = new Map<string, ReturnType<typeof splitQuality>>();
  const rows: { label: string; dim: string; q: ReturnType<typeof splitQuality>; e?: InstanceType<typeof LocalEmbedder> }[] = [];
  let firstSet: Awaited<ReturnType<typeof indexArticles>> | null = null;
  let chunkTexts: string[] = [];
  for (const [i, v] of variants.entries()) {
    if (process.stderr.isTTY) process.stderr.write(`\rindexing and searching with variant ${i + 1}/${variants.length}...`);
    const local = i === 0 ? main : new LocalEmbedder({ spec: v.spec, log: () => {} });
    // Without embedQueries, search embeds queries like chunks: no per-agent term weighting.
    const e = v.unweighted ? { model: local.model, dimension: local.dimension, embed: (t: string[]) => local.embed(t) } : local;
    const set = await indexArticles(`bench ${i}`, articles, e);
    if (!firstSet) {
      firstSet = set;
      chunkTexts = storedChunks(set).map((c) => c.text);
    }
    const q = splitQuality(await rankQuestions(set, articles, e), articles, tuneSet);
    results.set(v.label, q);
    rows.push({ label: i === 0 ? `local default (${e.model})` : v.label, dim: String(e.dimension), q, e: local });
  }
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  // The product's other retrieval modes on the default set (first 20 results read; deeper counts as not found).
  for (const mode of ["keyword", "hybrid"] as const) {
    const q = splitQuality(await rankQuestionsInMode(firstSet!, articles, main, mode), articles, tuneSet);
    rows.push({ label: mode === "keyword" ? "keyword mode (FTS5 bm25, porter)" : "hybrid mode (RRF k=60, vector + keyword)", dim: "-", q });
  }
  const bm25 = splitQuality(rankWithBm25(firstSet!, articles), articles, tuneSet);
  rows.push({ label: "bm25 (MiniSearch defaults)", dim: "-", q: bm25 });
  const bm25Stem = splitQuality(
    rankWithBm25(firstSet!, articles, (t) => (STOPWORDS.has(t) ? null : stem(t))),
    articles,
    tuneSet,
  );
  rows.push({ label: "bm25 + the embedder's stopwords and stemmer", dim: "-", q: bm25Stem });
  const header = `${"method".padEnd(44)} ${"dim".padStart(5)}   R@1   R@3   R@5  R@10   MRR | tune R@3   MRR | check R@3   MRR | µs/chunk`;
  console.log(header);
  console.log("-".repeat(header.length));
  // Timed once Chroma is idle: nearly full chunks (700 to 800 characters), after a warm-up.
  const fullChunks = chunkTexts.filter((t) => t.length >= 700);
  for (const r of rows) line(r.label, r.dim, r.q, r.e ? (await embedMicros(r.e, fullChunks)).toFixed(0) : "-");

  const def = results.get("local default")!;
  const rel = (a: number, b: number) => `${a >= b ? "+" : ""}${(((a - b) / b) * 100).toFixed(0)}%`;
  const seeds = variants
    .filter((v) => v.label === "local default" || v.label.startsWith("default, hash seed"))
    .map((v) => results.get(v.label)!.all.recall[3]);
  console.log(
    `\nlocal default R@3 ${pct(def.all.recall[3])}: ${rel(def.all.recall[3], bm25.all.recall[3])} vs bm25, ` +
      `${rel(def.all.recall[3], bm25Stem.all.recall[3])} vs bm25 + stemming (relative); MRR ${rel(def.all.mrr, bm25.all.mrr)} / ${rel(def.all.mrr, bm25Stem.all.mrr)}.`,
  );
  const mean = seeds.reduce((a, b) => a + b, 0) / seeds.length;
  console.log(
    `Hash-seed spread of the default recipe: R@3 ${pct(Math.min(...seeds))}..${pct(Math.max(...seeds))}, mean ${pct(mean)} ` +
      `(${rel(mean, bm25.all.recall[3])} vs bm25); one question is ${pct(1 / articles.length)}, so smaller differences are noise.`,
  );
  console.log(
    `µs/chunk: mean time to embed one chunk of 700 to 800 characters (${fullChunks.length} of the ${chunkTexts.length} chunks), word vectors loaded.`,
  );

  console.log(`\nChroma add throughput (real Chroma, slices of 64 through the app's addChunks, 1,024 chunks):`);
  for (const spec of [{ version: 1, lexicalDimension: 768, semanticWeight: 0 }, LOCAL_SPEC, { ...LOCAL_SPEC, lexicalDimension: 1436 }]) {
    const e = new LocalEmbedder({ spec, log: () => {} });
    const t = await chromaAddThroughput(e, chunkTexts, 1024);
    console.log(
      `  ${String(e.dimension).padStart(5)} dimensions: ${t.vectorsPerSecond.toFixed(0)} vectors/s (${t.msPerSlice.toFixed(0)} ms per slice of 64)${e.model === main.model ? "  <- default" : ""}`,
    );
  }

  // Query weighting: the per-agent feature counts, for this set and for a large agent.
  console.log(`\nPer-agent feature counts that weight queries (built on the first search, kept in memory):`);
  for (const [label, texts] of [
    ["the FAQ articles", chunkTexts],
    ["packages' copyright files (/usr/share/doc)", copyrightTexts()],
  ] as const) {
    const c = await corpusStatsCost(main, [...texts]);
    console.log(
      `  ${label}: ${c.chunks} chunks, ${c.features} distinct features, ${c.memoryMB < 1 ? "<1" : c.memoryMB.toFixed(0)} MB; ` +
        `first search ${c.coldMs.toFixed(0)} ms, then ${c.unchangedMs.toFixed(1)} ms per search, ` +
        `+${c.addedMs.toFixed(0)} ms after an upload, +${c.removedMs.toFixed(0)} ms after a deletion; full rebuild ${c.rebuiltMs.toFixed(0)} ms`,
    );
  }
}

/** About 10,000 chunks of varied English text that every Debian system has: packages' copyright files. */
function copyrightTexts(): string[] {
  const dir = "/usr/share/doc";
  const seen = new Set<string>();
  const texts: string[] = [];
  let chars = 0;
  for (const pkg of fs.readdirSync(dir).sort()) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, pkg, "copyright"), "utf8");
    } catch {
      continue;
    }
    if (seen.has(text)) continue;
    seen.add(text);
    texts.push(text);
    chars += text.length;
    if (chars > 7_000_000) break;
  }
  return texts;
}

main()
  .catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exitCode = 1;
  })
  .finally(cleanup);
