// `npm run bench:rerank [-- --sets debian,python --modes vector,hybrid]`: what the rerank stage
// gains on questions it never saw, on two labeled sets of our own that nobody tuned to: the
// Debian FAQ (`apt-get install debian-faq`) and the Python FAQ (`apt-get install python3.11-doc`),
// every section an article and its heading the question a person asked. Per set, through the
// app's own code on a real Chroma started in a temporary directory, local embedder:
//   - the articles are uploaded (chunks of 800/100), the offline generator proposes 5 questions
//     per article and all are accepted (the labels a team gets from generation);
//   - the human questions are split in two halves by a hash of their wording; the train half is
//     added as labeled pairs, the test half is never stored;
//   - the learned reranker is trained on the agent's labels (its 5-fold cross-validation printed);
//   - the test half is ranked as a run ranks it with `none`, `mmr` and `learned`.
// Prints one line per reranker with recall@1, @3, @5 and MRR on the test half.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startChroma } from "../chroma-server.mjs";
import { loadDebianFaq, type FaqArticle } from "./debian-faq";
import { loadPythonFaq } from "./sphinx-faq";

const { values } = parseArgs({
  options: { sets: { type: "string", default: "debian,python" }, modes: { type: "string", default: "vector" } },
});
const SETS = values.sets.split(",");
const MODES = values.modes.split(",");

const root = path.resolve(import.meta.dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-rerank-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
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
delete process.env.OPENAI_CHAT_MODEL;

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "  —  " : x.toFixed(3));
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

let failed = false;
try {
  const { createAgent, getAgent, updateAgent } = await import("../../lib/db/agents");
  const { ingestFile } = await import("../../lib/ingest/pipeline");
  const { createPair } = await import("../../lib/db/pairs");
  const { generatePairs } = await import("../../lib/evaluation/generate");
  const { acceptProposals } = await import("../../lib/evaluation/generate/review");
  const { rankPairs } = await import("../../lib/evaluation/run");
  const { listDocuments } = await import("../../lib/db/documents");
  const { AgentView } = await import("../../lib/db/agent-view");
  const { trainReranker } = await import("../../lib/evaluation/rerank-train");
  const { rerankFor } = await import("../../lib/retrieval/rerank");
  const { recallAtK, meanReciprocalRank } = await import("../../lib/core/metrics");
  const { DEFAULT_RERANK_CANDIDATES } = await import("../../lib/rerank/types");

  // Articles are named by number only: the Debian FAQ's anchors ("faq-01.7-pronunciation") are
  // the question's own key word, which would hand the reranker's name feature the answer.
  const numbered = (a: FaqArticle): FaqArticle => ({ ...a, filename: a.filename.replace(/-[a-z0-9-]+\.html$/, ".html") });
  const sets: Record<string, () => FaqArticle[]> = { debian: () => loadDebianFaq().articles.map(numbered), python: () => loadPythonFaq() };
  for (const name of SETS) {
    const articles = sets[name]();
    for (const mode of MODES) {
      const agent = createAgent({ name: `bench rerank ${name} ${mode}`, tools: ["document_search"] });
      updateAgent(agent.id, { retrieval_mode: mode as "vector" | "hybrid" | "keyword" });
      for (const a of articles) {
        const r = await ingestFile(
          agent.id,
          { filename: a.filename, bytes: new TextEncoder().encode(a.html) },
          { chunkSize: 800, chunkOverlap: 100 },
        );
        if (r.status !== "ready") throw new Error(`${a.filename}: ${r.message}`);
      }
      const generated = await generatePairs(agent.id, { documents: "all", per_document: 5 });
      const accepted = acceptProposals(agent.id);
      const train = articles.filter((a) => fnv(a.question) % 2 === 0);
      const test = articles.filter((a) => fnv(a.question) % 2 === 1);
      for (const a of train) createPair(agent.id, { query: a.question, expected_filename: a.filename });
      const started = performance.now();
      const report = await trainReranker(agent.id, { switchOn: false });
      const trainSeconds = (performance.now() - started) / 1000;
      const cv = report.cross_validation;
      console.log(
        `${name} FAQ, ${mode}: ${articles.length} articles, ${accepted} generated questions accepted (of ${generated.proposed}), ${train.length} human questions labeled, ${test.length} held out.`,
      );
      console.log(
        `  training: ${report.model.labels} labels, ${trainSeconds.toFixed(1)} s; 5-fold cross-validation on ${cv.questions}: recall@3 ${f3(cv.without.recall_at_k["3"])} -> ${f3(cv.with.recall_at_k["3"])}, MRR ${f3(cv.without.mrr)} -> ${f3(cv.with.mrr)}`,
      );
      const docs = listDocuments(agent.id).filter((d) => d.status === "ready");
      const pairs = test.map((a, i) => ({
        id: -(i + 1),
        agent_id: agent.id,
        query: a.question,
        expected_filename: a.filename,
        note: null,
        source: "manual" as const,
        status: "accepted" as const,
        created_at: "",
        updated_at: "",
        filter: null,
      }));
      console.log(`  held-out half (${pairs.length} questions)   R@1    R@3    R@5    MRR`);
      for (const reranker of ["none", "mmr", "learned"] as const) {
        updateAgent(agent.id, { reranker, reranker_model_id: report.model.version, rerank_candidates: DEFAULT_RERANK_CANDIDATES });
        const rerank = rerankFor(getAgent(agent.id));
        const results: { rank: number | null; missing: boolean; answerable: boolean; beyond_cut: boolean }[] = [];
        await rankPairs(AgentView.of(agent.id), pairs, { docs, cut: null, mode: mode as "vector", rerank }, (r) => results.push(...r));
        console.log(
          `  ${reranker.padEnd(36)} ${f3(recallAtK(results, 1))}  ${f3(recallAtK(results, 3))}  ${f3(recallAtK(results, 5))}  ${f3(meanReciprocalRank(results))}`,
        );
      }
    }
  }
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
