// `npm run bench:generated`: how good the offline question generator's questions are as a test
// set. The demo articles (demo/*.md) go into an agent through the app's own ingest, the offline
// generator proposes 5 questions per article, all are accepted, and recall is measured on them
// and, for comparison, on the hand-written pairs of demo/pairs.csv; on a real Chroma started in
// a temporary directory, with the local embedder.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startChroma } from "../chroma-server.mjs";
import { DEFAULT_FAQ_DIR, loadDebianFaq } from "./debian-faq";

const root = path.resolve(import.meta.dirname, "../..");
const demoDir = path.join(root, "demo");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-generated-"));
let stopChroma: (() => Promise<void>) | null = null;
const cleanup = async () => {
  await stopChroma?.();
  fs.rmSync(tmp, { recursive: true, force: true });
};
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "  —  " : x.toFixed(3));

async function main() {
  const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
  stopChroma = chroma.stop;
  const dataDir = path.join(tmp, "data");
  fs.mkdirSync(dataDir, { recursive: true });
  // The word-vector cache the tests build once: converting GloVe again would take most of the run.
  const cache = path.join(root, "node_modules/.cache/kb-inspector-test");
  fs.mkdirSync(cache, { recursive: true });
  fs.symlinkSync(cache, path.join(dataDir, "cache"));
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    CHROMA_URL: chroma.url,
    CHROMA_COLLECTION_PREFIX: "bench",
    EMBEDDING_PROVIDER: "local",
    KB_DEMO: "0",
  });
  delete process.env.OPENAI_CHAT_MODEL; // the offline generator is what is measured
  // Imported only now: lib/ reads the environment on first use.
  const { createAgent } = await import("../../lib/db/agents");
  const { ingestFile } = await import("../../lib/ingest/pipeline");
  const { importPairs } = await import("../../lib/evaluation/labeled-pairs");
  const { parsePairFile } = await import("../../lib/evaluation/pair-files");
  const { generatePairs } = await import("../../lib/evaluation/generate");
  const { acceptProposals } = await import("../../lib/evaluation/generate/review");
  const { candidateQuestions } = await import("../../lib/evaluation/generate/offline");
  const { getDocument, listDocuments } = await import("../../lib/db/documents");
  const { questionKey } = await import("../../lib/core/normalize");
  const { htmlToText } = await import("../../lib/extract/html.mjs");
  const { startEvaluation } = await import("../../lib/evaluation/run");
  const { runResults } = await import("../../lib/db/eval-runs");
  const { recallAtK, meanReciprocalRank } = await import("../../lib/core/metrics");
  const { embedder } = await import("../../lib/embeddings/configured");
  const { RETRIEVAL_MODES } = await import("../../lib/validations/agent");

  const articles = fs
    .readdirSync(demoDir)
    .filter((f) => f.endsWith(".md"))
    .sort();
  const agentWithArticles = async (name: string) => {
    const agent = createAgent({ name, tools: ["document_search"] });
    for (const f of articles)
      await ingestFile(agent.id, { filename: f, bytes: fs.readFileSync(path.join(demoDir, f)) }, { chunkSize: 800, chunkOverlap: 100 });
    return agent.id;
  };
  const figures = (results: { rank: number | null; missing: boolean; answerable: boolean; beyond_cut: boolean }[]) => ({
    n: results.filter((r) => r.answerable).length,
    r1: recallAtK(results, 1),
    r3: recallAtK(results, 3),
    r5: recallAtK(results, 5),
    mrr: meanReciprocalRank(results),
  });
  const line = (label: string, f: ReturnType<typeof figures>) =>
    console.log(`${label.padEnd(44)} ${String(f.n).padStart(4)}  ${f3(f.r1)}  ${f3(f.r3)}  ${f3(f.r5)}  ${f3(f.mrr)}`);
  const header = () => console.log(`${"".padEnd(44)} ${"n".padStart(4)}    R@1    R@3    R@5    MRR`);

  // The product's path: generate 5 per article, accept them all, run by source.
  const agentId = await agentWithArticles(`bench generated ${Date.now()}`);
  const imported = importPairs(agentId, parsePairFile(fs.readFileSync(path.join(demoDir, "pairs.csv"), "utf8"), "pairs.csv"));
  const report = await generatePairs(agentId, { documents: "all", per_document: 5 });
  const accepted = acceptProposals(agentId);
  console.log(`${articles.length} demo articles (chunks of 800/100), ${embedder().model}.`);
  console.log(
    `Offline generator, 5 per article: ${report.proposed} questions generated (${report.skipped} skipped), ${accepted} accepted; hand-written: ${imported.accepted} pairs of demo/pairs.csv.\n`,
  );
  for (const mode of RETRIEVAL_MODES) {
    console.log(`Retrieval mode ${mode}:`);
    header();
    for (const [label, source] of [
      ["generated (offline, 5 per article)", "generated"],
      ["hand-written (demo/pairs.csv)", "import"],
    ] as const) {
      const run = await startEvaluation(agentId, 5, mode, source).done;
      line(label, figures(runResults(run.id)));
    }
    console.log("");
  }

  await byKind(
    "the demo articles",
    articles.map((f) => ({ filename: f, bytes: fs.readFileSync(path.join(demoDir, f)) })),
  );

  // A real FAQ, if installed (`apt-get install debian-faq`): one document per chapter, its questions in its headings.
  if (!fs.existsSync(path.join(DEFAULT_FAQ_DIR, "index.en.html"))) {
    console.log(`\nThe Debian FAQ is not installed at ${DEFAULT_FAQ_DIR} (apt-get install debian-faq): its figures are left out.`);
    return;
  }
  const chapters = fs
    .readdirSync(DEFAULT_FAQ_DIR)
    .filter((f) => f.endsWith(".en.html") && f !== "index.en.html")
    .sort();
  const truth = new Set(loadDebianFaq().articles.map((a) => questionKey(a.question)));
  const found = chapters.flatMap((f) =>
    candidateQuestions(htmlToText(fs.readFileSync(path.join(DEFAULT_FAQ_DIR, f), "utf8"))).filter((q) => q.kind === "faq"),
  );
  const right = found.filter((q) => truth.has(questionKey(q.query))).length;
  console.log(
    `\nDebian FAQ, ${chapters.length} chapters: of its ${truth.size} questions (section headings), the generator reads ${right} as FAQ-style questions ` +
      `(${(right / truth.size).toFixed(3)}); ${found.length - right} other lines taken for FAQ questions.`,
  );
  await byKind(
    "the Debian FAQ's chapters",
    chapters.map((f) => ({ filename: f, bytes: fs.readFileSync(path.join(DEFAULT_FAQ_DIR, f)) })),
  );

  /** Every question the generator can give (up to 20 a document) through the product's path, accepted, recall by kind. */
  async function byKind(label: string, files: { filename: string; bytes: Uint8Array }[]) {
    const agent = createAgent({ name: `bench kinds ${label} ${Date.now()}`, tools: ["document_search"] });
    for (const file of files) await ingestFile(agent.id, file, { chunkSize: 800, chunkOverlap: 100 });
    const kindOf = new Map<string, string>();
    for (const d of listDocuments(agent.id).filter((d) => d.status === "ready")) {
      for (const q of candidateQuestions(getDocument(agent.id, d.id).text)) kindOf.set(`${q.query}\u0000${d.filename}`, q.kind);
    }
    const made = await generatePairs(agent.id, { documents: "all", per_document: 20 });
    acceptProposals(agent.id);
    console.log(`\nEvery offline question of ${label} (up to 20 a document: ${made.proposed}), by kind:`);
    for (const mode of ["vector", "hybrid"] as const) {
      const results = runResults((await startEvaluation(agent.id, 5, mode, "generated").done).id);
      console.log(`Retrieval mode ${mode}:`);
      header();
      for (const [kind, name] of [
        ["faq", "FAQ-style lines"],
        ["heading", "headings turned into questions"],
        ["sentence", "first sentences turned into questions"],
      ]) {
        const of = results.filter((r) => kindOf.get(`${r.query}\u0000${r.expected}`) === kind);
        if (of.length) line(name, figures(of));
      }
      line("all", figures(results));
    }
  }
}

main()
  .catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exitCode = 1;
  })
  .finally(cleanup);
