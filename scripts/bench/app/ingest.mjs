// The ingest through the app, in rounds, each followed by the same vectors added straight to
// Chroma; then those vectors once more with their text. Its figures are printed at the end.
import { CHUNK_SIZE, FILES_PER_REQUEST, INGEST_ROUNDS, RAW_CHUNKS, args, log } from "./options.mjs";
import { ratio } from "./http.mjs";
import { chromaMb, dataDir } from "./app.mjs";
import { cpuNow, memAvailableMb } from "./processes.mjs";

/**
 * Indexes the agents' articles (unless the corpus was `reused`) through `uploads` (uploader()),
 * taking turns with `raw` (rawChroma()). Returns `ingestFigures()`, read when the figures are
 * printed: its count of progress requests includes the uploads of the later phases.
 */
export async function runIngest({ agents, reused, uploads, raw }) {
  const { uploadBatches, sendUploads, sendJobs, jobParts } = uploads;
  const { appTarget, createScratch, dropScratch, rawAddRange } = raw;
  // The app's ingest and the raw add take turns, round by round, so that a slower or faster
  // spell of a shared machine weighs on both sides alike; the scratch collection grows round by
  // round as the app's does. Each round's raw add sends the vectors the app added in that round.
  const allBatches = uploadBatches(agents);
  const rounds =
    args.via === "jobs" ? INGEST_ROUNDS : Math.max(1, Math.min(INGEST_ROUNDS, Math.floor(allBatches.length / args.parallelUploads)));
  let scratch = null; // created after the first round: it copies the app collection's settings
  let indexed = 0;
  let ingestMs = 0;
  let rawMs = 0;
  // The rounds the raw side took part in: the ratio compares the two over these alone.
  let pairedChunks = 0;
  let pairedIngestMs = 0;
  const roundRates = [];
  const ingestCpu = { app: 0, chroma: 0, bench: 0 };
  let rawAddChromaCpu = 0;
  let textMs = 0;
  if (reused) {
    indexed = agents.reduce((n, a) => n + a.articles.reduce((m, f) => m + f.chunkCount, 0), 0);
    await appTarget();
  } else {
    try {
      for (let r = 0; r < rounds; r++) {
        const part = allBatches.slice(Math.floor((r * allBatches.length) / rounds), Math.floor(((r + 1) * allBatches.length) / rounds));
        const cpu0 = cpuNow(dataDir);
        const own0 = process.cpuUsage();
        const t0 = performance.now();
        const before = indexed;
        indexed += args.via === "jobs" ? await sendJobs(jobParts(agents, r, rounds)) : await sendUploads(part);
        const roundMs = performance.now() - t0;
        ingestMs += roundMs;
        const cpu1 = cpuNow(dataDir);
        ingestCpu.app += cpu1.app - cpu0.app;
        ingestCpu.chroma += cpu1.chroma - cpu0.chroma;
        const own = process.cpuUsage(own0);
        ingestCpu.bench += (own.user + own.system) / 1e6;
        const appRate = (indexed - before) / (roundMs / 1000);
        roundRates.push(Math.round(appRate));
        if (before >= RAW_CHUNKS) {
          // Past --raw-chunks the raw side has stopped; its scratch collection goes at once, so
          // that Chroma does not hold two copies through the rest of the run.
          if (scratch) await dropScratch(scratch);
          scratch = null;
          log(
            `round ${r + 1} of ${rounds}: ${indexed - before} chunks, app ${appRate.toFixed(0)}/s (${indexed} in all; Chroma ${chromaMb()} MB, ${Math.round(memAvailableMb())} MB available)`,
          );
          continue;
        }
        pairedChunks += indexed - before;
        pairedIngestMs += roundMs;
        scratch ??= await createScratch();
        const roundRawMs = await rawAddRange(scratch, before, indexed, false);
        rawMs += roundRawMs;
        rawAddChromaCpu += cpuNow(dataDir).chroma - cpu1.chroma;
        log(
          `round ${r + 1} of ${rounds}: ${indexed - before} chunks, app ${appRate.toFixed(0)}/s, raw add ${((indexed - before) / (roundRawMs / 1000)).toFixed(0)}/s (Chroma ${chromaMb()} MB, ${Math.round(memAvailableMb())} MB available)`,
        );
      }
    } finally {
      if (scratch) await dropScratch(scratch);
    }
    log(
      `ingest: ${indexed} chunks in ${(ingestMs / 1000).toFixed(1)} s; raw add of the first ${pairedChunks} vectors ${(rawMs / 1000).toFixed(1)} s, the app's ${(pairedIngestMs / 1000).toFixed(1)} s`,
    );

    // The same vectors once more, each with an 800-character text, in one pass.
    const chunkTexts = [];
    for (const a of agents)
      for (const f of a.articles)
        for (let i = 0; i < f.chunkCount; i++) chunkTexts.push({ doc: f.documentId, index: i, len: f.lens[i] ?? CHUNK_SIZE });
    raw.setLens(new Map(chunkTexts.map((c) => [`${c.doc}#${c.index}`, c.len])));
    const textScratch = await createScratch();
    try {
      textMs = await rawAddRange(textScratch, 0, pairedChunks, true);
    } finally {
      await dropScratch(textScratch);
    }
    log(`raw add with text: ${pairedChunks} vectors in ${(textMs / 1000).toFixed(1)} s`);
  }
  const ingestSeconds = ingestMs / 1000;
  const rawAddPerS = pairedChunks / (rawMs / 1000);
  const pairedIngestPerS = pairedChunks / (pairedIngestMs / 1000);
  const rawAddWithTextPerS = pairedChunks / (textMs / 1000);
  /** The ingest's figures, or what stands in for them when the corpus was reused. */
  const ingestFigures = () =>
    reused
      ? [
          ["chunks", indexed],
          ["ingest", `reused from ${dataDir}`],
        ]
      : [
          ["chunks", indexed],
          ["ingest_via", args.via],
          ...(args.via === "documents"
            ? [
                ["ingest_parallel_uploads", args.parallelUploads],
                ["ingest_files_per_request", FILES_PER_REQUEST],
              ]
            : []),
          ...(args.via === "jobs" ? [["ingest_poll_ms", args.pollMs]] : []),
          ["ingest_rounds", rounds],
          ["ingest_chunks_per_s", Math.round(indexed / ingestSeconds)],
          ["ingest_round_chunks_per_s", roundRates.join(" ")],
          ["raw_chroma_add_chunks", pairedChunks],
          ["raw_chroma_add_per_s", Math.round(rawAddPerS)],
          ["ingest_ratio", ratio(pairedIngestPerS / rawAddPerS)],
          ["raw_chroma_add_with_text_per_s", Math.round(rawAddWithTextPerS)],
          ["ingest_app_cpu_s", Math.round(ingestCpu.app)],
          ["ingest_chroma_cpu_s", Math.round(ingestCpu.chroma)],
          ["raw_add_chroma_cpu_s", Math.round(rawAddChromaCpu)],
          ["ingest_bench_client_cpu_s", Math.round(ingestCpu.bench * 10) / 10],
          ["ingest_progress_requests", uploads.progressRequests()],
        ];
  return { ingestFigures };
}
