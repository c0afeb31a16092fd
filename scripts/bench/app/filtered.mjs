// Metadata filters: the app's search with a filter matching 1%, 10% and 50% of an agent's
// documents against the same search without one, on the large agents.
import { SEARCHES, TOP_K, log } from "./options.mjs";
import { http, json, ms, percentile } from "./http.mjs";
import { int, pick, queryFrom } from "./corpus.mjs";

/**
 * What each search sends: no filter, then filters matching about 1%, 10% and 50% of the
 * documents, repeated as an agent's calls repeat them; and a 1% filter written differently on
 * every search (`distinct`), which the app cannot have resolved before. Each is [name, the filter
 * of the i-th search, the buckets it matches].
 */
export const FILTERS = [
  ["unfiltered", () => undefined, () => true],
  ["1pct", () => ({ bucket: 0 }), (b) => b === 0],
  ["10pct", () => ({ bucket: { $lt: 10 } }), (b) => b < 10],
  ["50pct", () => ({ bucket: { $lt: 50 } }), (b) => b < 50],
  ["1pct_distinct", (i) => ({ $and: [{ bucket: 0 }, { bucket: { $ne: -1000 - i } }] }), (b) => b === 0],
];

/**
 * Gives each article of the large agents a `bucket` (its place in the agent, modulo 100) with the
 * bulk metadata endpoint, then times the search with each filter in turn, one of each per query,
 * so that a change of load weighs on all alike. Every answer is checked: a filtered search
 * returns top_k results, all of documents of its buckets. Returns each filter's latencies and the
 * share of chunks it matched.
 */
export async function runFiltered({ base, large, qrand }) {
  const bucketOf = new Map();
  const setStarted = performance.now();
  for (const a of large) {
    const byBucket = new Map();
    a.articles.forEach((f, i) => {
      bucketOf.set(f.documentId, i % 100);
      byBucket.set(i % 100, [...(byBucket.get(i % 100) ?? []), f.documentId]);
    });
    for (const [bucket, ids] of byBucket)
      await http(`${base}/api/agents/${a.id}/documents/metadata`, json("POST", { document_ids: ids, metadata: { bucket } }), [200]);
  }
  log(`metadata set on ${bucketOf.size} documents in ${Math.round(performance.now() - setStarted)} ms`);
  const all = large.flatMap((a) => a.articles);
  const chunksOf = (list) => list.reduce((n, f) => n + f.chunks, 0);
  const share = new Map(FILTERS.map(([name, , ok]) => [name, chunksOf(all.filter((f) => ok(bucketOf.get(f.documentId)))) / chunksOf(all)]));
  const latencies = new Map(FILTERS.map(([name]) => [name, []]));
  const search = async (a, query, [name, filterOf, ok], i) => {
    const filter = filterOf(i);
    const t0 = performance.now();
    const body = await http(`${base}/api/agents/${a.id}/documents/search`, json("POST", { query, top_k: TOP_K, filter }), [200]);
    const took = performance.now() - t0;
    if (!body.results.every((r) => ok(bucketOf.get(r.document_id))))
      throw new Error(`a search with filter ${name} returned another bucket`);
    if (body.results.length !== TOP_K) throw new Error(`a search with filter ${name} returned ${body.results.length} results`);
    return took;
  };
  // Untimed: the first search of each agent with each filter.
  for (const a of large) for (const f of FILTERS) await search(a, queryFrom(qrand, pick(a.articles, qrand), 5), f, -1);
  for (let i = 0; i < SEARCHES; i++) {
    const a = large[i % large.length];
    const query = queryFrom(qrand, pick(a.articles, qrand), int(4, 7, qrand));
    for (const f of FILTERS) latencies.get(f[0]).push(await search(a, query, f, i));
  }
  log(
    `filtered searches: ${FILTERS.map(([name]) => `${name} p50 ${ms(percentile(latencies.get(name), 50))} ms (${(share.get(name) * 100).toFixed(1)}% of chunks)`).join(", ")}`,
  );
  return { latencies, share, agentChunks: Math.round(large.reduce((n, a) => n + a.chunks, 0) / large.length) };
}
