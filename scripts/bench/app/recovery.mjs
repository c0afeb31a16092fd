// Writes while the index recovers: a rebuild of the vector index, then Chroma killed during an
// upload, with small uploads one after another meanwhile.
import { args, log, runs } from "./options.mjs";
import { http, json } from "./http.mjs";
import { buildExtraAgent } from "./corpus.mjs";
import { chromaMb, dataDir } from "./app.mjs";
import { isChroma, memAvailableMb, ownProcesses } from "./processes.mjs";

/**
 * Runs the rebuild and crash phases (those --only keeps) against the app at `base`; `large` are
 * the corpus's large agents, `upload` is uploader().upload, `corpusStarted` when the run began
 * (for --rebuild-within). Returns what the figures print.
 */
export async function runRecovery({ base, large, upload, corpusStarted }) {
  // ---- a rebuild of the vector index (a new collection built from the stored vectors), with
  // small uploads one after another meanwhile: how long a write waits while it runs
  // A kept DATA_DIR may hold it from an earlier run (one stopped before its end): used again.
  const PROBE_AGENT = "Bench writes during recovery";
  const kept = (await http(`${base}/api/agents`)).agents.find((a) => a.name === PROBE_AGENT);
  const probeAgent = kept?.id ?? (await http(`${base}/api/agents`, json("POST", { name: PROBE_AGENT, tools: ["document_search"] }))).id;
  let probeN = 0;
  const smallUpload = async () => {
    const form = new FormData();
    form.append(
      "files",
      new Blob([`Probe note ${probeN}: written while the index recovers (probe${probeN}x).`], { type: "text/plain" }),
      `probe-${probeN++}.txt`,
    );
    const t0 = performance.now();
    try {
      const res = await fetch(`${base}/api/agents/${probeAgent}/documents`, { method: "POST", body: form });
      await res.text();
      return { status: res.status, ms: performance.now() - t0 };
    } catch {
      return { status: 0, ms: performance.now() - t0 };
    }
  };
  // The rebuild holds the new collection beside the old one until it switches: Chroma needs
  // about its present memory once more. Where the machine has not that to spare it is not run
  // (it would end in the kernel killing Chroma), and the figures say what bounded it.
  const chromaNowMb = chromaMb();
  const availableMb = Math.round(memAvailableMb());
  const runMin = (performance.now() - corpusStarted) / 60_000;
  let rebuildSkipped = !runs("rebuild") ? "not run (--only)" : args.skipRebuild ? "skipped (--skip-rebuild)" : null;
  if (!rebuildSkipped && args.rebuildWithinMin !== null && runMin > args.rebuildWithinMin)
    rebuildSkipped = `skipped: reached after ${runMin.toFixed(0)} minutes (--rebuild-within ${args.rebuildWithinMin})`;
  if (!rebuildSkipped && availableMb < chromaNowMb + 2048)
    rebuildSkipped = `skipped: Chroma holds ${chromaNowMb} MB, the machine has ${availableMb} MB available, a second copy needs about ${chromaNowMb}`;
  let rebuildSeconds = null;
  let rebuildUploadMaxMs = null;
  let rebuilt = { last_vectors: null };
  if (rebuildSkipped) log(`index rebuild ${rebuildSkipped}`);
  else {
    const rebuildStarted = performance.now();
    const startedRebuild = (await http(`${base}/api/audit/rebuild`, json("POST", {}), [202])).rebuild;
    const duringRebuild = [];
    do {
      duringRebuild.push(await smallUpload());
      rebuilt = (await http(`${base}/api/health`, {}, [200, 503])).index.rebuild;
    } while (!(rebuilt.state === "idle" && rebuilt.started_at === startedRebuild.started_at));
    if (rebuilt.last_error) throw new Error(`the index rebuild stopped: ${rebuilt.last_error}`);
    rebuildSeconds = (performance.now() - rebuildStarted) / 1000;
    rebuildUploadMaxMs = Math.max(0, ...duringRebuild.filter((u) => u.status === 201).map((u) => u.ms));
    log(
      `index rebuilt: ${rebuilt.last_vectors} vectors in ${rebuildSeconds.toFixed(1)} s; ${duringRebuild.length} uploads meanwhile, the longest ${Math.round(rebuildUploadMaxMs)} ms`,
    );
  }

  // ---- Chroma killed (SIGKILL) during an upload: the launcher restarts it over data an unclean
  // exit left, and the app checks the newest chunks (rebuilding the index only when that finds
  // damage), then the rest at a pace in the background. Measured from the kill: when searches
  // return every probed document again, the longest an upload waited once Chroma answered
  // again, how long the check of the newest chunks took, and the background check's pace.
  let correctS = null;
  let backAt = null;
  let checkedAt = null;
  let checkedChunks = null;
  let unclean = null;
  let blockedS = Number.NaN;
  let fullPerS = null;
  let fullTotal = null;
  if (runs("crash")) {
    const searchOf = (agentId, query) =>
      http(`${base}/api/agents/${agentId}/documents/search`, json("POST", { query, top_k: 5 }), [200, 503]);
    const probes = [];
    for (const f of large[0].articles.slice(0, 40)) {
      const r = await searchOf(large[0].id, f.token);
      if (r.results?.some((x) => x.document_id === f.documentId)) probes.push(f);
      if (probes.length === 20) break;
    }
    const allFound = async () => {
      for (const f of probes) {
        const r = await searchOf(large[0].id, f.token).catch(() => null);
        if (!r?.results?.some((x) => x.document_id === f.documentId)) return false;
      }
      return true;
    };
    const victim = buildExtraAgent(2000);
    victim.id = (await http(`${base}/api/agents`, json("POST", { name: `${victim.name} (killed)`, tools: ["document_search"] }))).id;
    const victimUpload = upload([victim]).catch(() => {}); // cut off by the kill: its files fail with 503
    await new Promise((r) => setTimeout(r, 1500));
    const killedAt = performance.now();
    const killedIso = new Date().toISOString();
    for (const p of ownProcesses(dataDir).filter(isChroma)) process.kill(p.pid, "SIGKILL");
    log("Chroma killed during an upload");
    const afterBack = [];
    let loggedAt = killedAt;
    while (performance.now() - killedAt < 60 * 60_000) {
      const u = await smallUpload();
      if (backAt !== null) afterBack.push(u);
      // From when the first round of probes that all came back right began: each of its searches
      // was right (past 1,000,000 chunks a round of 20 searches takes 20 s).
      const probedAt = performance.now();
      if (correctS === null && (await allFound())) correctS = (probedAt - killedAt) / 1000;
      const h = await http(`${base}/api/health`, {}, [200, 503]).catch(() => null);
      if (h?.ok && backAt === null && u.status === 201) backAt = performance.now();
      const idx = h?.index;
      if (idx?.rebuild?.last_finished_at > killedIso) unclean = true;
      if (performance.now() - loggedAt >= 60_000) {
        loggedAt = performance.now();
        const longest = Math.max(0, ...afterBack.filter((x) => x.status === 201).map((x) => x.ms));
        log(
          `${Math.round((loggedAt - killedAt) / 1000)} s after the kill: searches right again ${correctS === null ? "not yet" : `at ${correctS.toFixed(1)} s`}, ` +
            `the longest upload since Chroma answered ${Math.round(longest)} ms, the check ${idx?.recheck?.checked ?? "?"} of ${idx?.recheck?.total ?? "?"} chunks`,
        );
      }
      if (
        backAt !== null &&
        correctS !== null &&
        idx?.recheck?.state === "idle" &&
        idx.recheck.last_finished_at > killedIso &&
        idx.rebuild.state === "idle"
      ) {
        checkedAt = performance.now();
        checkedChunks = idx.recheck.checked;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    await victimUpload;
    blockedS = Math.max(0, ...afterBack.filter((u) => u.status === 201).map((u) => u.ms)) / 1000;
    // The paced check of the rest of the index goes on in the background: its pace over 30 s.
    const fullAt = async () => (await http(`${base}/api/health`, {}, [200, 503]).catch(() => null))?.index?.recheck?.full ?? null;
    const fullBefore = await fullAt();
    const fullT0 = performance.now();
    await new Promise((r) => setTimeout(r, 30_000));
    const fullAfter = await fullAt();
    fullPerS = fullBefore && fullAfter ? (fullAfter.checked - fullBefore.checked) / ((performance.now() - fullT0) / 1000) : null;
    fullTotal = fullAfter?.total ?? null;
    log(
      `after the kill: searches right again at ${correctS?.toFixed(1)} s, the longest upload once Chroma answered ${blockedS.toFixed(1)} s, ` +
        `the check of ${checkedChunks} recent chunks done ${checkedAt ? ((checkedAt - backAt) / 1000).toFixed(1) : "?"} s after Chroma answered (index rebuilt: ${unclean ? "yes" : "no"}); ` +
        `the full check in the background: ${fullPerS?.toFixed(0)} chunks/s over ${fullTotal} chunks`,
    );
  }
  return {
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
  };
}
