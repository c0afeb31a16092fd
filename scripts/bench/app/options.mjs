// The bench's command line (`npm run bench -- --help`) and the settings that follow from it.
import path from "node:path";

/** What a run measures after the ingest, in this order (--only picks some). */
export const PHASES = [
  "search",
  "filtered",
  "rerank",
  "inspect",
  "eval",
  "impact",
  "under-ingest",
  "rebuild",
  "crash",
  "large-file",
  "restart",
];
function parseArgs(argv) {
  const out = {
    chunks: 20000,
    via: "jobs",
    pollMs: 0,
    parallelUploads: 3,
    filesPerRequest: 20,
    rawChunks: null,
    skipRebuild: false,
    rebuildWithinMin: null,
    dataDir: null,
    stopAfterIngest: false,
    only: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [key, inline] =
      a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    if (key === "--chunks") {
      const v = Number(inline ?? argv[++i]);
      if (!Number.isInteger(v) || v < 1000) fail("--chunks needs a whole number of at least 1000");
      out.chunks = v;
    } else if (key === "--via") {
      const v = inline ?? argv[++i];
      if (v !== "jobs" && v !== "documents") fail('--via needs "jobs" or "documents"');
      out.via = v;
    } else if (key === "--poll-ms") {
      const v = Number(inline ?? argv[++i]);
      if (!Number.isInteger(v) || v < 0 || v > 5000) fail("--poll-ms needs a whole number of milliseconds from 0 to 5000");
      out.pollMs = v;
    } else if (key === "--parallel-uploads") {
      const v = Number(inline ?? argv[++i]);
      if (!Number.isInteger(v) || v < 1 || v > 16) fail("--parallel-uploads needs a whole number from 1 to 16");
      out.parallelUploads = v;
    } else if (key === "--files-per-request") {
      const v = Number(inline ?? argv[++i]);
      if (!Number.isInteger(v) || v < 1 || v > 50)
        fail("--files-per-request needs a whole number from 1 to 50 (the app's default MAX_FILES_PER_REQUEST)");
      out.filesPerRequest = v;
    } else if (key === "--raw-chunks") {
      const v = Number(inline ?? argv[++i]);
      if (!Number.isInteger(v) || v < 1000) fail("--raw-chunks needs a whole number of at least 1000");
      out.rawChunks = v;
    } else if (key === "--skip-rebuild") {
      out.skipRebuild = true;
    } else if (key === "--rebuild-within") {
      const v = Number(inline ?? argv[++i]);
      if (!Number.isFinite(v) || v <= 0) fail("--rebuild-within needs a number of minutes");
      out.rebuildWithinMin = v;
    } else if (key === "--data-dir") {
      const v = inline ?? argv[++i];
      if (!v) fail("--data-dir needs a directory");
      out.dataDir = path.resolve(v);
    } else if (key === "--only") {
      const v = String(inline ?? argv[++i] ?? "")
        .split(",")
        .filter(Boolean);
      const bad = v.filter((p) => !PHASES.includes(p));
      if (v.length === 0 || bad.length) fail(`--only needs phases from ${PHASES.join(",")}${bad.length ? ` (not: ${bad.join(",")})` : ""}`);
      out.only = new Set(v);
    } else if (key === "--stop-after-ingest") {
      out.stopAfterIngest = true;
    } else if (key === "--help" || key === "-h") {
      console.log(
        "usage: npm run bench -- [--chunks N] [--raw-chunks R] [--skip-rebuild | --rebuild-within M] [--data-dir D [--stop-after-ingest]] [--only P,...] [--via jobs|documents] [--poll-ms M] [--parallel-uploads P] [--files-per-request F]",
      );
      console.log("  --chunks N             chunks to index (default 20000, at least 1000)");
      console.log("  --raw-chunks R         add the vectors straight to Chroma only in the ingest rounds that start below R");
      console.log("                         chunks (default: every round), and the add with text for as many: the raw side");
      console.log("                         holds a second copy of what it adds, in time and in Chroma's memory");
      console.log("  --skip-rebuild         leave out the index rebuild (it copies every vector into a new collection:");
      console.log("                         the longest part of a run at 1,000,000 chunks); its figures print as skipped");
      console.log("  --rebuild-within M     run the rebuild only if the run reaches it within M minutes of its start");
      console.log("  --data-dir D           the app's DATA_DIR, kept at the end. When D already holds this corpus (a run with");
      console.log("                         the same --chunks and --stop-after-ingest made it), the ingest is not run again:");
      console.log("                         its figures print as reused, and the rest is measured over D. A run changes D");
      console.log("                         (agents, uploads, a kill): measure over a copy (cp -a) to keep the corpus");
      console.log("  --stop-after-ingest    end after the ingest and its raw add, printing their figures; over a D whose");
      console.log("                         ingest was cut short, uploads the articles not ready yet and ends");
      console.log(`  --only P,...           after the ingest, run only these of ${PHASES.join(",")}`);
      console.log("                         (in that order); the others' figures print as not run");
      console.log("  --via jobs             each agent's articles as one upload job, as the upload page sends a folder:");
      console.log("                         requests of 50 files one after another (the default)");
      console.log("  --poll-ms M            with jobs: follow each job by reading its progress every M ms (the page");
      console.log("                         reads every 400) instead of waiting for its end with ?wait (0, the default)");
      console.log("  --via documents        POST /documents requests that answer when their files are indexed,");
      console.log("                         P of F files in flight (the two options below)");
      console.log("  --parallel-uploads P   upload requests the client keeps in flight (default 3)");
      console.log("  --files-per-request F  files in each upload request (default 20; the upload page sends all it is given, up to 50)");
      process.exit(0);
    } else {
      fail(`unknown argument ${a}`);
    }
  }
  return out;
}
export function fail(msg) {
  console.error(`bench: ${msg}`);
  process.exit(2);
}
export const args = parseArgs(process.argv.slice(2));
/** Whether the run measures this phase (PHASES). */
export const runs = (phase) => phase === null || args.only === null || args.only.has(phase);
if (args.stopAfterIngest && !args.dataDir) fail("--stop-after-ingest needs --data-dir: the corpus it makes is kept there");

// ---------------------------------------------------------------- settings
export const CHUNK_SIZE = 800; // the app's default; uploads send no chunk settings
export const SMALL_AGENT_CHUNKS = 200;
export const LARGE_AGENTS = 3;
export const FILES_PER_REQUEST = args.filesPerRequest;
/** Files per request of an upload job, as the upload page sends them (MAX_FILES_PER_REQUEST). */
export const JOB_REQUEST_FILES = 50;
/**
 * The ingest and the raw add take turns this many times (fewer when there are few requests),
 * and once more for every 100,000 chunks past 400,000: a round's figures show how the ingest
 * slows as the index grows.
 */
export const INGEST_ROUNDS = Math.max(4, Math.ceil(args.chunks / 100_000));
/** The raw side's rounds: those that start below this many chunks. */
export const RAW_CHUNKS = args.rawChunks ?? Number.POSITIVE_INFINITY;
export const SEARCHES = 200;
export const INSPECTS = 50;
export const PAIRS = 1000;
/** Logged questions a draft's impact reads (and that the bench asks first, so there are that many). */
export const IMPACT_QUESTIONS = 1000;
export const TOP_K = 3;
export const SAMPLE_MS = 500;
export const HEALTH_TIMEOUT_MS = 15 * 60_000; // the first start may build the app
export const log = (msg) => console.error(`[bench] ${msg}`); // progress on stderr, figures on stdout
