// Runs once when the server starts.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { recoverInterruptedIngests } = await import("./lib/recovery");
  try {
    const n = await recoverInterruptedIngests();
    if (n > 0) console.log(`[kb-inspector] ${n} interrupted ingest(s) marked failed and their partial vectors removed`);
  } catch (err) {
    console.error("[kb-inspector] could not clean up interrupted ingests:", err instanceof Error ? err.message : err);
  }
}
