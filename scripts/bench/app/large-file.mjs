// The 20 MB file phase: how much the app's memory grows while it indexes one large file.
import { log, runs } from "./options.mjs";
import { http, json } from "./http.mjs";
import { largeHtml } from "./corpus.mjs";
import { dataDir } from "./app.mjs";
import { isNextServer, ownProcesses, rssKb } from "./processes.mjs";

/** Runs the large-file phase (unless --only leaves it out) against the app at `base`. */
export async function runLargeFile(base) {
  // ---- one 20 MB file (an HTML export: markup around its text): how much the app's memory
  // grows while it reads, chunks, embeds and writes it, sampled every 20 ms. The first one starts
  // an extraction worker (none has run since the small files); a second, different one shows
  // what each further file of that size costs.
  const bigAgent = (await http(`${base}/api/agents`, json("POST", { name: "Bench large file", tools: ["document_search"] }))).id;
  const appPid = ownProcesses(dataDir).find(isNextServer)?.pid;
  const uploadLarge = async (seed) => {
    const html = largeHtml(20 * 1024 * 1024 - 4096, seed);
    const before = appPid ? rssKb(appPid) : 0;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, appPid ? rssKb(appPid) : 0)), 20);
    const started = performance.now();
    const form = new FormData();
    form.append("files", new Blob([html], { type: "text/html" }), `export-${seed + 1}.html`);
    const result = await http(`${base}/api/agents/${bigAgent}/documents`, { method: "POST", body: form }, [201]);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const doc = result.documents?.[0];
    if (doc?.status !== "ready") throw new Error(`the 20 MB file was not indexed: ${doc?.message}`);
    log(
      `20 MB file: ${doc.chunk_count} chunks in ${seconds.toFixed(1)} s; app RSS ${Math.round(before / 1024)} -> peak ${Math.round(peak / 1024)} MB`,
    );
    return { chunks: doc.chunk_count, seconds, growthMb: Math.round((peak - before) / 1024) };
  };
  let big = { chunks: null, seconds: Number.NaN, growthMb: null };
  let bigAgain = big;
  if (runs("large-file")) {
    big = await uploadLarge(0);
    bigAgain = await uploadLarge(1);
  }
  return { big, bigAgain };
}
