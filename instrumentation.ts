// Runs once when the server starts.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // First, so every request from here on is stamped with the address it came from.
  const { installPeerStamp } = await import("./lib/auth/peer");
  installPeerStamp();
  const { recoverInterruptedIngests } = await import("./lib/index-upkeep/recover");
  const { embedder } = await import("./lib/embeddings/configured");
  try {
    const n = recoverInterruptedIngests();
    if (n > 0) console.log(`[kb-inspector] ${n} interrupted ingest(s) marked failed; their partial vectors are being removed`);
  } catch (err) {
    console.error("[kb-inspector] could not recover interrupted ingests:", err instanceof Error ? err.message : err);
  }
  // Chroma restarted from a crash can hold chunks its index cannot return: they are checked and rewritten.
  const { watchChromaRestarts } = await import("./lib/index-upkeep/after-restart");
  watchChromaRestarts();
  // A sweep cut off by the stop is failed now; its temporary collections go once Chroma answers.
  const { recoverSweeps } = await import("./lib/evaluation/sweep");
  void recoverSweeps()
    .then((n) => n > 0 && console.log(`[kb-inspector] ${n} sweep(s) cut off by the stop marked failed`))
    .catch((err) => console.error("[kb-inspector] temporary sweep collections not removed yet:", err instanceof Error ? err.message : err));
  // Syncs of sources cut off by the stop are failed; sources with an interval sync on schedule.
  const { watchSources } = await import("./lib/sources/schedule");
  watchSources();
  // Replays each agent's recent searches in the background, hourly, and keeps its index recall.
  const { watchIndexRecall } = await import("./lib/index-upkeep/index-recall-watch");
  watchIndexRecall();
  // Loads the embedder's data now rather than on the first page view; a failure shows in /api/health.
  // Then counts the features of the most recently changed agents, for query weighting.
  // Then loads the vectors of the most recently searched and changed agents for exact ranking, and
  // copies from Chroma those of documents indexed before the app kept a copy.
  const { warmCorpusStats } = await import("./lib/retrieval/corpus-stats");
  const { warmExactVectors } = await import("./lib/retrieval/exact");
  const { copyMissingVectors } = await import("./lib/index-upkeep/exact-copies");
  const { agentsByLatestChange } = await import("./lib/db/documents");
  const { agentsByLatestSearch } = await import("./lib/db/tool-calls");
  void embedder()
    .embed(["warm-up"])
    .then(() => warmCorpusStats(embedder()))
    .catch(() => {});
  // Read from SQLite alone, beside the embedder's start; a search's own load goes first.
  void warmExactVectors(embedder().model, [...agentsByLatestSearch(50), ...agentsByLatestChange(embedder().model, 50)])
    .catch((err) => console.error("[kb-inspector] exact ranking's vectors not loaded ahead:", err instanceof Error ? err.message : err))
    .then(() => copyMissingVectors({ retryMs: 30_000 }));
}
