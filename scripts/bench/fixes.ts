// `npm run bench:fixes [-- --misses 40 --publish 5]`: how often a suggested fix rescues a missed
// pair, on a labeled set of our own with misses: the Debian FAQ that Debian ships (`apt-get
// install debian-faq`), each section's question labeled with the section (scripts/bench/debian-faq.ts),
// through the app's own code on a real Chroma started in a temporary directory, local embedder.
// For each missed pair (up to --misses): the suggested fixes (GET /api/agents/{id}/pairs/{id}/fixes),
// and whether the best rescues the pair with no regression among the labeled pairs. Then for
// --publish of them, the best fix is staged in a draft, its impact read (the predicted recall@3
// and MRR), the draft published and an evaluation run (the measured ones): the two must be equal.
// Prints one `key: value` line per figure.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startChroma } from "../chroma-server.mjs";
import { loadDebianFaq } from "./debian-faq";

const { values } = parseArgs({ options: { misses: { type: "string", default: "40" }, publish: { type: "string", default: "5" } } });
const MAX_MISSES = Number(values.misses);
const PUBLISH = Number(values.publish);
const K = 3;

const faq = loadDebianFaq();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-fixes-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
Object.assign(process.env, {
  DATA_DIR: path.join(tmp, "data"),
  CHROMA_URL: chroma.url,
  CHROMA_COLLECTION_PREFIX: "bench",
  EMBEDDING_PROVIDER: "local",
  KB_DEMO: "0",
});
let failed = false;
try {
  // Imported only now: lib/ reads the environment on first use.
  const { createAgent } = await import("../../lib/db/agents");
  const { ingestFile } = await import("../../lib/ingest/pipeline");
  const { createPair } = await import("../../lib/db/pairs");
  const { runResults } = await import("../../lib/db/eval-runs");
  const { evaluate } = await import("../../lib/evaluation/run");
  const { suggestFixes, stageFix } = await import("../../lib/evaluation/fixes");
  const { draftImpact } = await import("../../lib/evaluation/impact");
  const { createDraft } = await import("../../lib/db/drafts");
  const { publish } = await import("../../lib/ingest/drafts");

  const agent = createAgent({ name: "debian faq", tools: ["document_search"] });
  for (const a of faq.articles) {
    const r = await ingestFile(
      agent.id,
      { filename: a.filename, bytes: new TextEncoder().encode(a.html) },
      { chunkSize: 800, chunkOverlap: 100 },
    );
    if (r.status !== "ready") throw new Error(`${a.filename}: ${r.message}`);
  }
  for (const a of faq.articles) createPair(agent.id, { query: a.question, expected_filename: a.filename });
  const run = await evaluate(agent.id, K);
  const missed = runResults(run.id).filter((r) => r.rank === null || r.rank > K);
  console.log(`pairs: ${run.n_pairs}`);
  console.log(`recall_at_${K}: ${run.recall_at_k?.[String(K)]}`);
  console.log(`misses: ${missed.length}`);

  const tried = missed.slice(0, MAX_MISSES);
  let clean = 0;
  let rescued = 0;
  let seconds = 0;
  const kinds = new Map<string, number>();
  const best: { pairId: number; change: Parameters<typeof stageFix>[2] }[] = [];
  for (const m of tried) {
    const started = performance.now();
    const f = await suggestFixes(agent.id, m.pair_id!, K, { questions: 0 });
    seconds += (performance.now() - started) / 1000;
    const first = f.fixes[0];
    if (f.fixes.some((x) => x.rescues)) rescued++;
    if (first?.rescues && first.scored && first.regressions.pairs.length === 0) {
      clean++;
      kinds.set(first.change.kind, (kinds.get(first.change.kind) ?? 0) + 1);
      best.push({ pairId: m.pair_id!, change: first.change });
    }
  }
  console.log(`misses_tried: ${tried.length}`);
  console.log(`rescued_with_no_regression: ${clean} (${((clean / Math.max(1, tried.length)) * 100).toFixed(1)}%)`);
  console.log(`rescued_by_some_fix: ${rescued} (${((rescued / Math.max(1, tried.length)) * 100).toFixed(1)}%)`);
  console.log(`best_fix_kinds: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);
  console.log(`fixes_per_pair_s: ${(seconds / Math.max(1, tried.length)).toFixed(2)}`);

  // Predicted against measured: each fix staged, its impact read, published, and a run measured.
  let equal = 0;
  let published = 0;
  for (const b of best.slice(0, PUBLISH)) {
    const draft = createDraft(agent.id, "bench fix");
    try {
      await stageFix(agent.id, draft.id, b.change, null);
    } catch (err) {
      console.log(`stage_failed: ${err instanceof Error ? err.message : err}`); // an earlier fix changed the chunk
      continue;
    }
    const impact = await draftImpact(agent.id, draft.id, { k: K, questions: 0 });
    await publish(agent.id, draft.id);
    const after = await evaluate(agent.id, K);
    const [pr, mr] = [impact.pairs.recall_at_k.after, after.recall_at_k?.[String(K)]];
    const [pm, mm] = [impact.pairs.mrr.after, after.mrr];
    published++;
    if (pr === mr && pm === mm) equal++;
    console.log(`published_${published}: predicted recall@${K} ${pr} MRR ${pm}; measured recall@${K} ${mr} MRR ${mm}`);
  }
  console.log(`predicted_equals_measured: ${equal} of ${published}`);
} catch (err) {
  console.error(err);
  failed = true;
} finally {
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
