// The read side: the app's search against the same query straight to Chroma, the inspector, a
// recall evaluation, and searches while another team's upload runs.
import { IMPACT_QUESTIONS, INSPECTS, PAIRS, SEARCHES, TOP_K, args, log, runs } from "./options.mjs";
import { http, json, ms, percentile } from "./http.mjs";
import { buildExtraAgent, int, mulberry32, pick, queryFrom } from "./corpus.mjs";

/**
 * Runs the search, inspect, eval and under-ingest phases (those --only keeps) against the app at
 * `base` and its collection (`appSide`, from rawChroma().side()); `upload` is uploader().upload.
 * Returns their latencies, and the large agents and query randomness the later phases go on with.
 */
export async function runReads({ base, chromaApi, appSide, agents, upload }) {
  // ---- search through the app vs. the same filtered query straight to Chroma
  const large = agents.filter((a) => !a.small);
  const small = agents.find((a) => a.small);
  const qrand = mulberry32(99);
  const searchLatencies = async (list, n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = list[i % list.length];
      const query = queryFrom(qrand, pick(a.articles, qrand), int(4, 7, qrand));
      const t0 = performance.now();
      const body = await http(`${base}/api/agents/${a.id}/documents/search`, json("POST", { query, top_k: TOP_K }), [200]);
      out.push(performance.now() - t0);
      if (!Array.isArray(body.results)) throw new Error("search answered no results array");
    }
    return out;
  };
  // The raw side sends the same agent filter and k with a query vector near the agent's chunks:
  // Chroma's own cost for that filter and k, which is what the app's search pays underneath.
  // Query vectors near the agent's own chunks, as real questions are: each is one of the agent's
  // stored vectors, read from Chroma (the app's own query vectors cannot be read over HTTP).
  const nearVectors = new Map();
  for (const a of agents) {
    const got = await http(
      `${chromaApi}/collections/${appSide.collection.id}/get`,
      json("POST", { where: { agent_id: a.id }, include: ["embeddings"], limit: 50, offset: 0 }),
    );
    nearVectors.set(a.id, got.embeddings);
  }
  const rawLatencies = async (list, n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = list[i % list.length];
      // What the app asks Chroma for: ids and distances (the text of the hits comes from SQLite).
      const body = JSON.stringify({
        query_embeddings: [pick(nearVectors.get(a.id), qrand)],
        n_results: TOP_K,
        where: { agent_id: a.id },
        include: ["distances"],
      });
      const t0 = performance.now();
      await http(
        `${chromaApi}/collections/${appSide.collection.id}/query`,
        { method: "POST", headers: { "Content-Type": "application/json" }, body },
        [200],
      );
      out.push(performance.now() - t0);
    }
    return out;
  };
  // The same query scoped by the agent's chunk ids instead of the filter, as the app sends it
  // (lib/retrieval/id-scope.ts): Chroma's cost for the scope the app's search pays now.
  const idsOf = new Map(
    agents.map((a) => [
      a.id,
      JSON.stringify(a.articles.flatMap((f) => Array.from({ length: f.chunkCount }, (_, i) => `doc${f.documentId}#${i}`))),
    ]),
  );
  const rawIdsLatencies = async (list, n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = list[i % list.length];
      const body = `{"query_embeddings":[${JSON.stringify(pick(nearVectors.get(a.id), qrand))}],"n_results":${TOP_K},"include":["distances"],"ids":${idsOf.get(a.id)}}`;
      const t0 = performance.now();
      await http(
        `${chromaApi}/collections/${appSide.collection.id}/query`,
        { method: "POST", headers: { "Content-Type": "application/json" }, body },
        [200],
      );
      out.push(performance.now() - t0);
    }
    return out;
  };
  // One untimed call per agent on each side: the first search builds the agent's corpus counts.
  await searchLatencies(agents, agents.length);
  await rawLatencies(agents, agents.length);
  await rawIdsLatencies(agents, agents.length);
  // Agents past EXACT_MAX_CHUNKS are served from their compact tables once held: a search starts
  // a table's load in the background, so each is searched until Index health says it is held.
  const served = { tablesReadyS: 0, servedRecall: Number.NaN, serving: [] };
  const waitStarted = performance.now();
  for (;;) {
    const serving = (await http(`${base}/api/health`, {}, [200, 503])).index?.exact?.large_agents ?? [];
    served.serving = serving;
    if (serving.every((a) => a.serving.startsWith("ranked exactly"))) break;
    if (performance.now() - waitStarted > 30 * 60_000) {
      log(`compact tables not all held after 30 minutes: ${JSON.stringify(serving)}`);
      break;
    }
    await searchLatencies(agents, agents.length);
    await new Promise((r) => setTimeout(r, 1_000));
  }
  served.tablesReadyS = (performance.now() - waitStarted) / 1000;
  if (served.serving.length > 0)
    log(`compact tables held after ${served.tablesReadyS.toFixed(1)} s: ${served.serving.map((a) => `${a.name} ${a.serving}`).join("; ")}`);

  /** The app's search and the raw query alternate, one of each per agent in turn: a change of load during the run weighs on both sides alike. */
  const paired = async (list) => {
    const app = [];
    const direct = [];
    const byIds = [];
    for (let i = 0; i < SEARCHES; i++) {
      const a = list[i % list.length];
      app.push(...(await searchLatencies([a], 1)));
      direct.push(...(await rawLatencies([a], 1)));
      byIds.push(...(await rawIdsLatencies([a], 1)));
    }
    return [app, direct, byIds];
  };
  let [search, raw, rawIds, smallSearch, smallRaw] = [[], [], [], [], []];
  if (runs("search")) {
    [search, raw, rawIds] = await paired(large);
    [smallSearch, smallRaw] = await paired([small]);
    // Logged as they come, so that a run stopped before its end still has them.
    log(
      `searches done: p50 ${ms(percentile(search, 50))} ms (raw ${ms(percentile(raw, 50))}, raw by ids ${ms(percentile(rawIds, 50))}), p95 ${ms(percentile(search, 95))} (raw ${ms(percentile(raw, 95))}); ` +
        `small agent p50 ${ms(percentile(smallSearch, 50))} ms (raw ${ms(percentile(smallRaw, 50))})`,
    );
  }

  // What searches get of the exact nearest 10 (the index-recall monitor, replaying each large
  // agent's latest searches against the exact ranking): the lowest of the large agents.
  if (runs("search")) {
    const recalls = [];
    for (const a of large) recalls.push((await http(`${base}/api/agents/${a.id}/index-recall`, { method: "POST" }, [200])).served_recall);
    served.servedRecall = Math.min(...recalls.filter((r) => r !== null));
    log(`served recall@10 against the exact ranking, per large agent: ${recalls.join(", ")}`);
  }

  // ---- the inspector on a large agent
  const target = large[0];
  const inspect = [];
  if (runs("inspect")) {
    for (let i = 0; i < INSPECTS; i++) {
      const f = pick(target.articles, qrand);
      const query = queryFrom(qrand, f, int(4, 7, qrand));
      const t0 = performance.now();
      await http(
        `${base}/api/agents/${target.id}/inspect`,
        json("POST", { query, top_k: TOP_K, expected_document_id: f.documentId }),
        [200],
      );
      inspect.push(performance.now() - t0);
    }
    log(`inspections done: p50 ${ms(percentile(inspect, 50))} ms`);
  }

  // ---- recall evaluation of 1,000 pairs on a large agent
  let evalSeconds = Number.NaN;
  let evalRun = null;
  if (runs("eval")) {
    const prand = mulberry32(1234);
    const seen = new Set();
    const pairs = [];
    for (let guard = 0; pairs.length < PAIRS && guard < PAIRS * 50; guard++) {
      const f = target.articles[pairs.length % target.articles.length];
      const query = `${f.token} ${queryFrom(prand, f, int(3, 5, prand))}`;
      if (seen.has(query)) continue;
      seen.add(query);
      pairs.push({ query, expected: f.filename });
    }
    const imported = await http(`${base}/api/agents/${target.id}/pairs`, json("POST", pairs), [201]);
    if (imported.rejected?.length)
      throw new Error(`${imported.rejected.length} pairs rejected, e.g. ${JSON.stringify(imported.rejected[0])}`);
    const evalStarted = performance.now();
    const run = await http(`${base}/api/agents/${target.id}/evals`, json("POST", { k: TOP_K }), [200, 201]);
    evalSeconds = (performance.now() - evalStarted) / 1000;
    log(
      `evaluation of ${run.n_pairs} pairs: ${evalSeconds.toFixed(1)} s, recall@${TOP_K} ${run.recall_at_k?.[String(TOP_K)]}, MRR ${run.mrr}`,
    );
    evalRun = run;
  }

  // ---- a draft's impact over those pairs and 1,000 logged questions, and the fixes of one missed pair
  const impact = {
    seconds: Number.NaN,
    fixesSeconds: Number.NaN,
    fixes: Number.NaN,
    chunks: target.articles.reduce((n, f) => n + f.chunks, 0),
  };
  if (runs("impact") && evalRun) {
    const qr = mulberry32(777);
    for (let i = 0; i < IMPACT_QUESTIONS; i++) {
      const f = pick(target.articles, qr);
      await http(
        `${base}/api/agents/${target.id}/documents/search`,
        json("POST", { query: queryFrom(qr, f, int(3, 6, qr)), top_k: TOP_K }),
        [200],
      );
    }
    const draft = await http(`${base}/api/agents/${target.id}/drafts`, json("POST", { name: "bench" }), [201]);
    const [edited, removed] = [target.articles[0], target.articles[1]];
    const doc = await http(`${base}/api/agents/${target.id}/documents/${edited.documentId}`);
    await http(
      `${base}/api/agents/${target.id}/chunks/${doc.chunks[0].id}?draft=${draft.id}`,
      json("PATCH", { questions: [queryFrom(qr, edited, 4), queryFrom(qr, edited, 5)] }),
      [200],
    );
    await http(`${base}/api/agents/${target.id}/documents/${removed.documentId}?draft=${draft.id}`, { method: "DELETE" }, [200]);
    const started = performance.now();
    const res = await http(`${base}/api/agents/${target.id}/drafts/${draft.id}/impact?k=${TOP_K}&questions=${IMPACT_QUESTIONS}`);
    impact.seconds = (performance.now() - started) / 1000;
    log(
      `impact of a draft over ${res.pairs.count} pairs and ${res.questions.count} logged questions on ${impact.chunks} chunks: ${impact.seconds.toFixed(1)} s ` +
        `(recall@${TOP_K} ${res.pairs.recall_at_k.before} -> ${res.pairs.recall_at_k.after}, ${res.pairs.changed.length} pairs and ${res.questions.changed.length} questions change)`,
    );
    await http(`${base}/api/agents/${target.id}/drafts/${draft.id}`, { method: "DELETE" }, [204]);
    const miss = evalRun.pairs?.find((p) => p.rank === null || p.rank > TOP_K);
    const listed = (await http(`${base}/api/agents/${target.id}/pairs`)).pairs;
    const missed = miss && listed.find((p) => p.query === miss.query && p.expected === miss.expected);
    if (missed) {
      const fixStarted = performance.now();
      const fixes = await http(`${base}/api/agents/${target.id}/pairs/${missed.id}/fixes?k=${TOP_K}&questions=${IMPACT_QUESTIONS}`);
      impact.fixesSeconds = (performance.now() - fixStarted) / 1000;
      impact.fixes = fixes.fixes.length;
      log(
        `fixes of one missed pair: ${impact.fixesSeconds.toFixed(1)} s for ${fixes.fixes.length} candidates, ${fixes.fixes.filter((f) => f.rescues).length} rescue it`,
      );
    } else log("fixes of one missed pair: no pair was missed");
  }

  // ---- search while another team's upload runs
  const underIngest = [];
  const rawUnderIngest = [];
  if (runs("under-ingest")) {
    const extra = buildExtraAgent(Math.max(1000, Math.round(args.chunks / 10)));
    extra.id = (await http(`${base}/api/agents`, json("POST", { name: extra.name, tools: ["document_search"] }))).id;
    let uploading = true;
    const uploadDone = upload([extra]).finally(() => (uploading = false));
    // The raw query alternates with the app's search, so the figures say how much of the wait is Chroma's.
    while (uploading) {
      underIngest.push(...(await searchLatencies(large, 1)));
      rawUnderIngest.push(...(await rawLatencies(large, 1)));
    }
    await uploadDone;
    log(
      `searches during an upload of ${extra.chunks} chunks: ${underIngest.length}, p95 ${ms(percentile(underIngest, 95))} ms (raw ${ms(percentile(rawUnderIngest, 95))})`,
    );
  }
  return { large, qrand, search, raw, rawIds, smallSearch, smallRaw, inspect, evalSeconds, impact, underIngest, rawUnderIngest, served };
}
