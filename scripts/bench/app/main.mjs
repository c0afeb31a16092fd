#!/usr/bin/env node
// `npm run bench -- [--chunks N]`: the running app measured against raw Chroma.
//
// Starts the app on its embedded defaults (local embedder, embedded Chroma) in a temporary
// DATA_DIR on a free port, indexes a generated corpus of support articles through the upload
// API, then measures, one side after the other in the same run:
//   - ingest through the app vs. adding the same vectors straight to Chroma, the two taking
//     turns in rounds (a quarter of the corpus each);
//   - search through the app vs. the same filtered query straight to Chroma, the two alternating;
//   - the search with metadata filters matching 1%, 10% and 50% of an agent against none;
//   - the search with the learned reranker (trained on 200 labels) and with MMR against none;
//   - the inspector, a recall evaluation of 1,000 pairs, a draft's impact over those pairs and
//     1,000 logged questions, the suggested fixes of one missed pair, and the peak memory of both
//     processes.
// Prints one `key: value` line per figure. The app and everything it started are stopped at
// the end, also on failure, and the temporary directory is removed.
//
// The phases live beside this file: options.mjs (the command line), corpus.mjs, app.mjs (the
// app's start and stop), uploads.mjs and raw-chroma.mjs (the two sides of the ingest),
// ingest.mjs, search.mjs (search, inspect, eval, search during an upload), filtered.mjs,
// rerank.mjs, recovery.mjs (rebuild,
// Chroma killed), large-file.mjs; the restart and the figures are here.
import { TOP_K, args, fail, log, runs } from "./options.mjs";
import { buildCorpus, pick, queryFrom } from "./corpus.mjs";
import { http, json, ms, percentile, ratio } from "./http.mjs";
import { chromaAnsweredS, dataDir, firstAnswerS, startApp, startSampler, stopAll, stopLauncher } from "./app.mjs";
import { uploader } from "./uploads.mjs";
import { rawChroma } from "./raw-chroma.mjs";
import { runIngest } from "./ingest.mjs";
import { runReads } from "./search.mjs";
import { FILTERS, runFiltered } from "./filtered.mjs";
import { RERANKERS, runRerank } from "./rerank.mjs";
import { runRecovery } from "./recovery.mjs";
import { runLargeFile } from "./large-file.mjs";

async function main() {
  const corpusStarted = performance.now();
  const agents = buildCorpus(args.chunks);
  const nArticles = agents.reduce((n, a) => n + a.articles.length, 0);
  log(
    `corpus: ${agents.reduce((n, a) => n + a.articles.reduce((m, f) => m + f.chunks, 0), 0)} chunks in ${nArticles} articles over ${agents.length} agents (${Math.round(performance.now() - corpusStarted)} ms)`,
  );

  const { base, chromaUrl } = await startApp();
  const sampler = startSampler();
  const chromaApi = `${chromaUrl.replace(/\/$/, "")}/api/v2/tenants/default_tenant/databases/default_database`;
  log(`app at ${base}, Chroma at ${chromaUrl}`);

  // A kept DATA_DIR that holds this corpus already (--data-dir) is measured as it is.
  const existing = new Map((await http(`${base}/api/agents`)).agents.map((a) => [a.name, a.id]));
  const reused = agents.every((a) => existing.has(a.name));
  if (reused) {
    for (const a of agents) {
      a.id = existing.get(a.name);
      const docs = new Map(
        (await http(`${base}/api/agents/${a.id}/documents`)).documents.filter((d) => d.status === "ready").map((d) => [d.filename, d]),
      );
      for (const f of a.articles) {
        const d = docs.get(f.filename);
        if (!d) continue;
        f.documentId = d.id;
        f.chunkCount = d.chunk_count;
      }
    }
    // An ingest cut short (--stop-after-ingest stopped before its end) is finished: the articles
    // not ready yet are uploaded now (an interrupted one was failed at the app's start).
    const rest = agents
      .map((a) => ({ ...a, articles: a.articles.filter((f) => f.documentId === undefined) }))
      .filter((a) => a.articles.length);
    const missing = rest.reduce((n, a) => n + a.articles.length, 0);
    if (missing > 0) {
      if (!args.stopAfterIngest)
        fail(
          `${dataDir} holds ${missing} of the corpus's ${nArticles} articles not ready: finish its ingest with --stop-after-ingest first`,
        );
      log(`finishing the ingest in ${dataDir}: ${missing} of ${nArticles} articles are not ready yet`);
      const started = performance.now();
      const up = uploader(base);
      const chunks = await up.sendUploads(up.uploadBatches(rest));
      log(`finished: ${chunks} chunks in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    log(`reusing the corpus in ${dataDir}: the ingest is not run again`);
  } else {
    if (agents.some((a) => existing.has(a.name)))
      fail(`${dataDir} holds part of a corpus: use an empty directory or one a run with --chunks ${args.chunks} --stop-after-ingest made`);
    for (const a of agents) a.id = (await http(`${base}/api/agents`, json("POST", { name: a.name, tools: ["document_search"] }))).id;
  }

  const uploads = uploader(base);
  const rawSide = rawChroma(chromaUrl, chromaApi);
  const { ingestFigures } = await runIngest({ agents, reused, uploads, raw: rawSide });
  if (args.stopAfterIngest) {
    for (const [k, v] of ingestFigures()) console.log(`${k}: ${v}`);
    return;
  }

  const { large, qrand, search, raw, rawIds, smallSearch, smallRaw, inspect, evalSeconds, impact, underIngest, rawUnderIngest, served } =
    await runReads({
      base,
      chromaApi,
      appSide: rawSide.side(),
      agents,
      upload: uploads.upload,
    });
  const filtered = runs("filtered") ? await runFiltered({ base, large, qrand }) : null;
  const reranked = runs("rerank") ? await runRerank({ base, large, qrand }) : null;
  const {
    rebuildSkipped,
    rebuildSeconds,
    rebuildUploadMaxMs,
    rebuilt,
    correctS,
    backAt,
    checkedAt,
    checkedChunks,
    unclean,
    blockedS,
    fullPerS,
    fullTotal,
  } = await runRecovery({ base, large, upload: uploads.upload, corpusStarted });
  const { big, bigAgain } = await runLargeFile(base);

  // ---- a restart: time to a healthy answer, then the first search (counts loaded from disk)
  let restartHealthS = Number.NaN;
  let firstSearchMs = Number.NaN;
  if (runs("restart")) {
    sampler.sample();
    log("restarting the app");
    await stopLauncher();
    const restartStarted = performance.now();
    const again = await startApp();
    restartHealthS = (performance.now() - restartStarted) / 1000;
    const firstQuery = queryFrom(qrand, pick(large[0].articles, qrand), 5);
    const firstStarted = performance.now();
    await http(`${again.base}/api/agents/${large[0].id}/documents/search`, json("POST", { query: firstQuery, top_k: TOP_K }), [200]);
    firstSearchMs = performance.now() - firstStarted;
  }
  sampler.sample();
  sampler.stop();

  const p50 = (v) => percentile(v, 50);
  const figures = [
    ...ingestFigures(),
    ["search_p50_ms", ms(p50(search))],
    ["search_p95_ms", ms(percentile(search, 95))],
    ["raw_query_p50_ms", ms(p50(raw))],
    ["search_overhead_ratio", ratio(p50(search) / p50(raw))],
    ["raw_ids_query_p50_ms", ms(p50(rawIds))],
    ["search_to_raw_ids_ratio", ratio(p50(search) / p50(rawIds))],
    ["compact_tables_ready_s", Math.round(served.tablesReadyS * 10) / 10],
    ["served_recall_at_10_min", served.servedRecall],
    ["small_agent_search_p50_ms", ms(p50(smallSearch))],
    ["small_agent_overhead_ratio", ratio(p50(smallSearch) / p50(smallRaw))],
    ["filtered_agent_chunks", filtered?.agentChunks ?? Number.NaN],
    ...RERANKERS.map((r) => [`rerank_search_p50_ms_${r}`, reranked ? ms(p50(reranked.latencies.get(r))) : Number.NaN]),
    ...RERANKERS.filter((r) => r !== "none").map((r) => [
      `rerank_search_${r}_minus_none_p50_ms`,
      reranked ? ms(p50(reranked.latencies.get(r)) - p50(reranked.latencies.get("none"))) : Number.NaN,
    ]),
    ["rerank_train_s", reranked ? Math.round(Math.max(...reranked.training.map((t) => t.seconds)) * 10) / 10 : Number.NaN],
    ...FILTERS.flatMap(([name]) => [
      [`filtered_search_p50_ms_${name}`, filtered ? ms(p50(filtered.latencies.get(name))) : Number.NaN],
      ...(name === "unfiltered"
        ? []
        : [
            [
              `filtered_search_${name}_to_unfiltered_ratio`,
              filtered ? ratio(p50(filtered.latencies.get(name)) / p50(filtered.latencies.get("unfiltered"))) : Number.NaN,
            ],
            [`filtered_search_${name}_chunk_share`, filtered ? Math.round(filtered.share.get(name) * 1000) / 1000 : Number.NaN],
          ]),
    ]),
    ["inspect_p50_ms", ms(p50(inspect))],
    ["inspect_to_search_ratio", ratio(p50(inspect) / p50(search))],
    ["search_p95_ms_under_ingest", ms(percentile(underIngest, 95))],
    ["under_ingest_p95_ratio", ratio(percentile(underIngest, 95) / percentile(search, 95))],
    ["raw_query_p95_ms", ms(percentile(raw, 95))],
    ["raw_query_p95_ms_under_ingest", ms(percentile(rawUnderIngest, 95))],
    ["raw_under_ingest_p95_ratio", ratio(percentile(rawUnderIngest, 95) / percentile(raw, 95))],
    ["eval_1000_pairs_s", Math.round(evalSeconds * 100) / 100],
    ["impact_agent_chunks", impact.chunks],
    ["impact_1000_pairs_1000_questions_s", Math.round(impact.seconds * 100) / 100],
    ["fixes_one_pair_s", Math.round(impact.fixesSeconds * 100) / 100],
    ["fixes_one_pair_candidates", impact.fixes],
    ["rebuild_index_s", rebuildSkipped ?? Math.round(rebuildSeconds * 10) / 10],
    ["rebuild_vectors", rebuildSkipped ? "-" : rebuilt.last_vectors],
    ["rebuild_upload_max_ms", rebuildSkipped ? "-" : ms(rebuildUploadMaxMs)],
    ["unclean_restart_writes_blocked_s", Math.round(blockedS * 10) / 10],
    ["unclean_restart_first_correct_search_s", correctS === null ? "never" : Math.round(correctS * 10) / 10],
    ["unclean_restart_check_s", checkedAt === null ? "not finished in an hour" : Math.round(((checkedAt - backAt) / 1000) * 10) / 10],
    ["unclean_restart_checked_chunks", checkedChunks],
    ["unclean_restart_index_rebuilt", unclean ? "yes" : "no"],
    ["unclean_restart_full_check_chunks_per_s", fullPerS === null ? "unknown" : Math.round(fullPerS)],
    ["unclean_restart_full_check_h", fullPerS ? Math.round((fullTotal / fullPerS / 3600) * 100) / 100 : "unknown"],
    ["restart_health_s", Math.round(restartHealthS * 10) / 10],
    ["restart_chroma_answering_s", Math.round(chromaAnsweredS * 10) / 10],
    ["restart_first_answer_s", Math.round(firstAnswerS * 10) / 10],
    ["first_search_after_restart_ms", ms(firstSearchMs)],
    ["upload_20mb_chunks", big.chunks],
    ["upload_20mb_s", Math.round(big.seconds * 10) / 10],
    ["upload_20mb_app_rss_growth_mb", big.growthMb],
    ["upload_20mb_again_app_rss_growth_mb", bigAgain.growthMb],
    ["app_peak_rss_mb", Math.round(sampler.peak.app / 1024)],
    ["chroma_peak_rss_mb", Math.round(sampler.peak.chroma / 1024)],
  ];
  for (const [k, v] of figures)
    console.log(`${k}: ${!runs(phaseOf(k)) ? "not run (--only)" : Number.isNaN(v) ? "n/a (a phase it needs was not run)" : v}`);
}

/** The phase a figure comes from (PHASES), or null for the run's own. */
function phaseOf(key) {
  if (/under_ingest/.test(key)) return "under-ingest";
  if (/^filtered/.test(key)) return "filtered";
  if (/^rerank/.test(key)) return "rerank";
  if (/^inspect/.test(key)) return "inspect";
  if (/^(search|raw_query|raw_ids|small_agent)/.test(key)) return "search";
  if (/^eval/.test(key)) return "eval";
  if (/^(impact|fixes)/.test(key)) return "impact";
  if (/^unclean_restart/.test(key)) return "crash";
  if (/^(restart|first_search_after_restart)/.test(key)) return "restart";
  if (/^upload_20mb/.test(key)) return "large-file";
  return null;
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  console.error(`bench failed: ${err?.stack ?? err}`);
  exitCode = 1;
} finally {
  await stopAll();
}
process.exit(exitCode);
