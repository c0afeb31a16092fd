// The rerank stage's cost: the app's search with the learned reranker (and MMR) against the same
// search without one, on the large agents.
import { SEARCHES, TOP_K, log } from "./options.mjs";
import { http, json, ms, percentile } from "./http.mjs";
import { int, pick, queryFrom } from "./corpus.mjs";

/** Labeled questions each large agent gets to train on: about what a team labels in its first weeks. */
const LABELS = 200;
export const RERANKERS = ["none", "learned", "mmr"];

/**
 * Labels LABELS questions of each large agent (a query made from an article, that article
 * expected), trains its learned reranker and switches it on (`force`: the timing is measured
 * whether or not it wins on these made-up questions), then times the search with each reranker
 * in turn, one of each per query, so that a change of load weighs on all alike. Returns each
 * reranker's latencies and the training's seconds and cross-validation.
 */
export async function runRerank({ base, large, qrand }) {
  const training = [];
  for (const a of large) {
    const pairs = Array.from({ length: LABELS }, () => {
      const article = pick(a.articles, qrand);
      return { query: queryFrom(qrand, article, int(4, 7, qrand)), expected: article.filename };
    });
    await http(`${base}/api/agents/${a.id}/pairs`, json("POST", pairs), [200, 201]);
    const started = performance.now();
    const report = await http(`${base}/api/agents/${a.id}/reranker/train`, json("POST", { switch_on: false }), [201]);
    training.push({ seconds: (performance.now() - started) / 1000, report });
    log(`trained the learned reranker of ${a.name}: ${report.reason}`);
  }
  const set = (a, reranker) =>
    http(`${base}/api/agents/${a.id}`, json("PATCH", reranker === "learned" ? { reranker, force: true } : { reranker }), [200]);
  const latencies = new Map(RERANKERS.map((r) => [r, []]));
  const search = async (a, query) => {
    const t0 = performance.now();
    const body = await http(`${base}/api/agents/${a.id}/documents/search`, json("POST", { query, top_k: TOP_K }), [200]);
    const took = performance.now() - t0;
    if (body.results.length !== TOP_K) throw new Error(`a reranked search returned ${body.results.length} results`);
    return took;
  };
  // Untimed: the first search of each agent with each reranker (the model read and parsed once).
  for (const a of large)
    for (const r of RERANKERS) {
      await set(a, r);
      await search(a, queryFrom(qrand, pick(a.articles, qrand), 5));
    }
  for (let i = 0; i < SEARCHES; i++) {
    const a = large[i % large.length];
    const query = queryFrom(qrand, pick(a.articles, qrand), int(4, 7, qrand));
    for (const r of RERANKERS) {
      await set(a, r);
      latencies.get(r).push(await search(a, query));
    }
  }
  for (const a of large) await set(a, "none");
  log(`reranked searches: ${RERANKERS.map((r) => `${r} p50 ${ms(percentile(latencies.get(r), 50))} ms`).join(", ")}`);
  return { latencies, training };
}
