#!/usr/bin/env node
// `npm run bench -- [--chunks N]`: the running app measured against raw Chroma.
//
// Starts the app on its embedded defaults (local embedder, embedded Chroma) in a temporary
// DATA_DIR on a free port, indexes a generated corpus of support articles through the upload
// API, then measures, one side after the other in the same run:
//   - ingest through the app vs. adding the same vectors straight to Chroma, the two taking
//     turns in rounds (a quarter of the corpus each);
//   - search through the app vs. the same filtered query straight to Chroma, the two alternating;
//   - the inspector, a recall evaluation of 1,000 pairs, and the peak memory of both processes.
// Prints one `key: value` line per figure. The app and everything it started are stopped at
// the end, also on failure, and the temporary directory is removed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
// The app's own chunker sizes the generated articles (`npm run bench` loads tsx for it).
import { chunkText } from "../lib/core/chunking.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// ---------------------------------------------------------------- arguments
/** What a run measures after the ingest, in this order (--only picks some). */
const PHASES = ["search", "inspect", "eval", "under-ingest", "rebuild", "crash", "large-file", "restart"];
function parseArgs(argv) {
  const out = { chunks: 20000, via: "jobs", pollMs: 0, parallelUploads: 3, filesPerRequest: 20, rawChunks: null, skipRebuild: false, rebuildWithinMin: null, dataDir: null, stopAfterIngest: false, only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [key, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
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
      if (!Number.isInteger(v) || v < 1 || v > 50) fail("--files-per-request needs a whole number from 1 to 50 (the app's default MAX_FILES_PER_REQUEST)");
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
      const v = String(inline ?? argv[++i] ?? "").split(",").filter(Boolean);
      const bad = v.filter((p) => !PHASES.includes(p));
      if (v.length === 0 || bad.length) fail(`--only needs phases from ${PHASES.join(",")}${bad.length ? ` (not: ${bad.join(",")})` : ""}`);
      out.only = new Set(v);
    } else if (key === "--stop-after-ingest") {
      out.stopAfterIngest = true;
    } else if (key === "--help" || key === "-h") {
      console.log("usage: npm run bench -- [--chunks N] [--raw-chunks R] [--skip-rebuild | --rebuild-within M] [--data-dir D [--stop-after-ingest]] [--only P,...] [--via jobs|documents] [--poll-ms M] [--parallel-uploads P] [--files-per-request F]");
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
      console.log("  --stop-after-ingest    end after the ingest and its raw add, printing their figures");
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
function fail(msg) {
  console.error(`bench: ${msg}`);
  process.exit(2);
}
const args = parseArgs(process.argv.slice(2));
/** Whether the run measures this phase (PHASES). */
const runs = (phase) => phase === null || args.only === null || args.only.has(phase);
if (args.stopAfterIngest && !args.dataDir) fail("--stop-after-ingest needs --data-dir: the corpus it makes is kept there");

// ---------------------------------------------------------------- settings
const CHUNK_SIZE = 800; // the app's default; uploads send no chunk settings
const SMALL_AGENT_CHUNKS = 200;
const LARGE_AGENTS = 3;
const FILES_PER_REQUEST = args.filesPerRequest;
/** Files per request of an upload job, as the upload page sends them (MAX_FILES_PER_REQUEST). */
const JOB_REQUEST_FILES = 50;
/**
 * The ingest and the raw add take turns this many times (fewer when there are few requests),
 * and once more for every 100,000 chunks past 400,000: a round's figures show how the ingest
 * slows as the index grows.
 */
const INGEST_ROUNDS = Math.max(4, Math.ceil(args.chunks / 100_000));
/** The raw side's rounds: those that start below this many chunks. */
const RAW_CHUNKS = args.rawChunks ?? Number.POSITIVE_INFINITY;
const SEARCHES = 200;
const INSPECTS = 50;
const PAIRS = 1000;
const TOP_K = 3;
const SAMPLE_MS = 500;
const HEALTH_TIMEOUT_MS = 15 * 60_000; // the first start may build the app
const log = (msg) => console.error(`[bench] ${msg}`); // progress on stderr, figures on stdout

// ---------------------------------------------------------------- seeded randomness
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20240611);
const pick = (arr, r = rand) => arr[Math.floor(r() * arr.length)];
const int = (lo, hi, r = rand) => lo + Math.floor(r() * (hi - lo + 1));

// ---------------------------------------------------------------- corpus
const W = {
  product: "router modem gateway printer scanner laptop tablet phone headset keyboard monitor camera thermostat speaker charger dock projector smartwatch firewall switch repeater extender console server drive backup vault mailbox calendar invoice subscription license account portal dashboard workspace wallet".split(" "),
  feature: "firmware password login billing refund warranty shipping delivery return exchange pairing bluetooth wireless network bandwidth storage encryption certificate notification permission sync export import update upgrade reset recovery activation installation configuration schedule quota invoice receipt coupon discount trial renewal cancellation migration integration webhook token session profile".split(" "),
  verb: "restart reset update configure install remove enable disable verify check replace contact open close select download upload connect disconnect restore rename assign review confirm submit request schedule cancel renew transfer approve reject retry clear refresh unlock register sign migrate export import".split(" "),
  adj: "slow intermittent missing expired blocked duplicate incorrect unexpected delayed corrupted unresponsive locked encrypted unavailable pending failed partial outdated invalid offline overheated noisy dim empty frozen flickering weak strong secure shared private default custom automatic manual regional international monthly annual".split(" "),
  noun: "customer agent technician administrator owner user team manager partner vendor carrier courier warehouse store branch office region country plan tier order ticket case request issue error message code light button cable port adapter battery screen menu settings page tab option field form link email address number".split(" "),
  filler: "the a an this that each every your our its their when if after before while because so then also usually often sometimes always never only still already".split(" "),
  prep: "in on with for from to by at under over through during within without about across".split(" "),
  time: "minutes hours days weeks seconds business-days".split(" "),
};

function sentence(r, topic) {
  const parts = [];
  const kind = int(0, 5, r);
  const p = () => pick(W.product, r);
  const f = () => pick(W.feature, r);
  if (kind === 0) parts.push(`If ${pick(W.filler, r)} ${p()} shows ${pick(["a", "an"], r)} ${pick(W.adj, r)} ${pick(W.noun, r)}, ${pick(W.verb, r)} the ${f()} and ${pick(W.verb, r)} it again.`);
  else if (kind === 1) parts.push(`To ${pick(W.verb, r)} ${topic.product} ${topic.feature}, open ${pick(W.noun, r)} ${pick(W.feature, r)} ${pick(W.prep, r)} the ${pick(W.noun, r)} ${pick(W.feature, r)} and ${pick(W.verb, r)} ${pick(W.adj, r)} ${f()}.`);
  else if (kind === 2) parts.push(`The ${pick(W.noun, r)} can ${pick(W.verb, r)} ${pick(W.adj, r)} ${f()} ${pick(W.prep, r)} ${int(1, 72, r)} ${pick(W.time, r)}; ${pick(W.filler, r)} ${pick(W.noun, r)} ${pick(W.verb, r)}s the ${p()}.`);
  else if (kind === 3) parts.push(`${pick(W.filler, r)[0].toUpperCase()}${pick(W.filler, r).slice(1)} ${topic.product} ${pick(W.feature, r)} is ${pick(W.adj, r)}, ${pick(W.verb, r)} the ${pick(W.noun, r)} ${pick(W.prep, r)} ${pick(W.adj, r)} ${pick(W.feature, r)}.`);
  else if (kind === 4) parts.push(`Note: ${topic.feature} ${pick(W.prep, r)} ${pick(W.adj, r)} ${pick(W.product, r)} ${pick(W.noun, r)}s needs ${pick(W.adj, r)} ${f()} ${pick(W.prep, r)} the ${pick(W.noun, r)}.`);
  else parts.push(`Step ${int(1, 9, r)}: ${pick(W.verb, r)} ${pick(W.filler, r)} ${pick(W.adj, r)} ${p()} ${f()}, then ${pick(W.verb, r)} ${pick(W.noun, r)} ${pick(W.feature, r)}.`);
  return parts.join(" ");
}

/**
 * One article of `chunks` chunks under the app's default chunking (boundary, 800/100): sentences
 * are generated well past that length, then the longest run of whole sentences that the app's
 * own chunker (`lib/core/chunking.ts`) cuts into at most `chunks` chunks is kept.
 */
function article(r, id, chunks, token) {
  const topic = { product: pick(W.product, r), feature: pick(W.feature, r) };
  const title = `# ${topic.product} ${topic.feature} ${pick(W.adj, r)} ${pick(W.noun, r)} (${token})`;
  // Prefix lengths after each sentence, each sentence with the break that follows it.
  let text = `${title}\n\n`;
  const ends = [];
  let sinceBreak = 0;
  const want = CHUNK_SIZE * chunks + 400;
  while (text.length < want) {
    let s = sentence(r, topic);
    if (r() < 0.08) s += ` Reference ${token}.`;
    text += s;
    ends.push(text.length);
    text += ++sinceBreak >= int(3, 6, r) ? "\n\n" : " ";
    if (text.endsWith("\n\n")) sinceBreak = 0;
  }
  const count = (k) => chunkText(text.slice(0, ends[k])).length;
  let lo = 0; // count(lo) <= chunks, the longest such prefix is searched for
  let hi = ends.length - 1;
  if (count(hi) <= chunks) lo = hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (count(mid) <= chunks) lo = mid;
    else hi = mid;
  }
  const body = text.slice(0, ends[lo]);
  const lens = chunkText(body).map((c) => c.text.length);
  return { id, filename: `article-${token}.md`, token, text: body, chunks: lens.length, lens };
}

/** Agents: one small one of about 200 chunks among large ones, `total` chunks in all. */
function buildCorpus(total) {
  const agents = [];
  const sizes = [SMALL_AGENT_CHUNKS];
  const rest = total - SMALL_AGENT_CHUNKS;
  for (let i = 0; i < LARGE_AGENTS; i++) sizes.push(Math.floor(rest / LARGE_AGENTS) + (i < rest % LARGE_AGENTS ? 1 : 0));
  let n = 0;
  for (const [i, size] of sizes.entries()) {
    const articles = [];
    let left = size;
    while (left > 0) {
      const c = Math.min(left, int(3, 9));
      const token = `kb${(n++).toString(36).padStart(4, "0")}q`;
      const a = article(rand, n, c, token);
      articles.push(a);
      left -= a.chunks;
    }
    agents.push({ name: i === 0 ? "bench small" : `bench large ${i}`, small: i === 0, chunks: size, articles });
  }
  return agents;
}

/** One more agent of `chunks` chunks, uploaded while searches run. */
/**
 * An HTML export of about `bytes` bytes: support articles, each in the page chrome such exports
 * carry (navigation, related links, a footer, class attributes), so its text is about a fifth of
 * its size, within MAX_TEXT_CHARS.
 */
function largeHtml(bytes, seed = 0) {
  const rand = mulberry32(77 + seed);
  const parts = ["<!doctype html><html><head><title>Help centre export</title></head><body>"];
  let size = parts[0].length;
  for (let i = 0; size < bytes - 200; i++) {
    const topic = { product: pick(W.product, rand), feature: pick(W.feature, rand) };
    const words = Array.from({ length: 2 }, () => sentence(rand, topic)).join(" ");
    const related = Array.from({ length: 4 }, (_, k) => `<li><a class="related__link" href="/help/articles/${(i * 7 + k) % 9973}">${pick(W.product, rand)} ${pick(W.feature, rand)}</a></li>`).join("");
    const article =
      `<nav class="breadcrumbs"><ul><li><a href="/">Home</a></li><li><a href="/help">Help centre</a></li></ul></nav>` +
      `<article class="help-article" data-id="${i}"><h2 class="help-article__title">Article ${i}</h2>` +
      `<p class="help-article__body">${words}</p></article>` +
      `<aside class="related"><h3>Related articles</h3><ul>${related}</ul></aside>` +
      `<footer class="site-footer"><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>\n`;
    if (size + article.length > bytes - 20) break;
    parts.push(article);
    size += article.length;
  }
  parts.push("</body></html>");
  return parts.join("");
}

function buildExtraAgent(chunks) {
  const articles = [];
  for (let left = chunks, n = 0; left > 0; n++) {
    const c = Math.min(left, int(3, 9));
    const a = article(rand, 100_000 + n, c, `kx${n.toString(36).padStart(4, "0")}q`);
    articles.push(a);
    left -= a.chunks;
  }
  return { name: "bench upload during search", small: false, chunks, articles };
}

function queryFrom(r, a, words) {
  const tokens = a.text.replace(/[^A-Za-z -]+/g, " ").split(/\s+/).filter((w) => w.length > 2 && !w.startsWith("kb"));
  const start = int(0, Math.max(0, tokens.length - words), r);
  return tokens.slice(start, start + words).join(" ");
}

// ---------------------------------------------------------------- processes
function freePort(avoid = new Set()) {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => (avoid.has(port) ? freePort(avoid).then(resolve, reject) : resolve(port)));
    });
  });
}

/** Processes whose environment has our DATA_DIR, with their command line. */
function ownProcesses(dataDir) {
  const needle = `\0DATA_DIR=${dataDir}\0`;
  const found = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${name}/environ`, "latin1");
      if (!`\0${environ}\0`.includes(needle)) continue;
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean);
      found.push({ pid: Number(name), cmdline });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The machine's memory still available to new allocations (MemAvailable), in MB. */
function memAvailableMb() {
  const m = /MemAvailable:\s+(\d+)\s+kB/.exec(fs.readFileSync("/proc/meminfo", "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Chroma's resident memory now, in MB. */
const chromaMb = () => Math.round(Math.max(0, ...ownProcesses(dataDir).filter(isChroma).map((p) => rssKb(p.pid))) / 1024);

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by the app's server and by Chroma. */
function cpuNow(dataDir) {
  const out = { app: 0, chroma: 0 };
  for (const p of ownProcesses(dataDir)) {
    if (isNextServer(p)) out.app += cpuSeconds(p.pid);
    else if (isChroma(p)) out.chroma += cpuSeconds(p.pid);
  }
  return out;
}

function isNextServer(p) {
  return (p.cmdline[0] ?? "").startsWith("next-server");
}
function isChroma(p) {
  const i = p.cmdline.findIndex((a) => a.endsWith("cli.mjs"));
  return i >= 0 && p.cmdline[i + 1] === "run";
}

class Sampler {
  constructor(dataDir) {
    this.dataDir = dataDir;
    this.peak = { app: 0, chroma: 0 };
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }
  sample() {
    for (const p of ownProcesses(this.dataDir)) {
      if (isNextServer(p)) this.peak.app = Math.max(this.peak.app, rssKb(p.pid));
      else if (isChroma(p)) this.peak.chroma = Math.max(this.peak.chroma, rssKb(p.pid));
    }
  }
  stop() {
    clearInterval(this.timer);
  }
}

// ---------------------------------------------------------------- http helpers
async function http(url, init = {}, expect = [200, 201]) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status}: ${text.slice(0, 400)}`);
  return text ? JSON.parse(text) : null;
}
const json = (method, body) => ({ method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
const ms = (x) => Math.round(x * 10) / 10;
const ratio = (x) => Math.round(x * 100) / 100;

// ---------------------------------------------------------------- main
const dataDir = args.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-"));
if (args.dataDir) fs.mkdirSync(dataDir, { recursive: true });
let launcher = null;
let launcherExited = null;
let sampler = null;
let stopping = false;

async function stopAll() {
  if (stopping) return;
  stopping = true;
  sampler?.stop();
  if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
    launcher.kill("SIGTERM");
    await Promise.race([launcherExited, new Promise((r) => setTimeout(r, 30_000))]);
  }
  // Anything that still runs with this DATA_DIR was started by this run.
  for (let round = 0; round < 20; round++) {
    const left = ownProcesses(dataDir).filter((p) => p.pid !== process.pid);
    if (left.length === 0) break;
    for (const p of left) {
      try {
        process.kill(p.pid, round < 5 ? "SIGTERM" : "SIGKILL");
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const left = ownProcesses(dataDir).filter((p) => p.pid !== process.pid);
  if (left.length) log(`warning: still running with DATA_DIR=${dataDir}: ${left.map((p) => p.pid).join(", ")}`);
  if (args.dataDir) log(`DATA_DIR kept: ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    stopAll().finally(() => process.exit(130));
  });
}

/** Seconds from the launcher's start to Chroma answering, and to the app's first answer, for the last start. */
let chromaAnsweredS = null;
let firstAnswerS = null;

async function startApp() {
  // 3000 and 3100 are the app's and the end-to-end tests' usual ports: never take them.
  const port = await freePort(new Set([3000, 3100]));
  const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, KB_DEMO: "0", NEXT_TELEMETRY_DISABLED: "1" };
  for (const k of ["CHROMA_URL", "CHROMA_PORT", "ADMIN_PASSWORD", "VIEWER_PASSWORD", "EMBEDDING_PROVIDER", "HOST", "CHROMA_COLLECTION_PREFIX", "CHROMA_TENANT", "CHROMA_DATABASE"]) delete env[k];
  log(`starting the app on port ${port} with DATA_DIR=${dataDir}`);
  launcher = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  launcherExited = new Promise((r) => launcher.once("exit", r));
  let chromaUrl = null;
  let tail = "";
  const spawned = performance.now();
  firstAnswerS = null;
  const onData = (buf) => {
    const s = buf.toString();
    tail = (tail + s).slice(-4000);
    const m = /Chroma is answering at (http:\/\/[^\s]+)/.exec(tail);
    if (m && !chromaUrl) {
      chromaUrl = m[1];
      chromaAnsweredS = (performance.now() - spawned) / 1000;
    }
  };
  launcher.stdout.on("data", onData);
  launcher.stderr.on("data", onData);

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  for (;;) {
    if (launcher.exitCode !== null || launcher.signalCode !== null) throw new Error(`the app stopped before answering:\n${tail}`);
    if (Date.now() > deadline) throw new Error(`no healthy answer from ${base}/api/health in time:\n${tail}`);
    try {
      const res = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(5000) });
      await res.text();
      firstAnswerS ??= (performance.now() - spawned) / 1000; // any answer: the app is up, Chroma may still load
      if (res.status === 200 && chromaUrl) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { base, chromaUrl };
}

async function main() {
  const corpusStarted = performance.now();
  const agents = buildCorpus(args.chunks);
  const nArticles = agents.reduce((n, a) => n + a.articles.length, 0);
  log(`corpus: ${agents.reduce((n, a) => n + a.articles.reduce((m, f) => m + f.chunks, 0), 0)} chunks in ${nArticles} articles over ${agents.length} agents (${Math.round(performance.now() - corpusStarted)} ms)`);

  const { base, chromaUrl } = await startApp();
  sampler = new Sampler(dataDir);
  const chromaApi = `${chromaUrl.replace(/\/$/, "")}/api/v2/tenants/default_tenant/databases/default_database`;
  log(`app at ${base}, Chroma at ${chromaUrl}`);

  // A kept DATA_DIR that holds this corpus already (--data-dir) is measured as it is.
  const existing = new Map((await http(`${base}/api/agents`)).agents.map((a) => [a.name, a.id]));
  const reused = agents.every((a) => existing.has(a.name));
  if (reused) {
    for (const a of agents) {
      a.id = existing.get(a.name);
      const docs = new Map((await http(`${base}/api/agents/${a.id}/documents`)).documents.filter((d) => d.status === "ready").map((d) => [d.filename, d]));
      for (const f of a.articles) {
        const d = docs.get(f.filename);
        if (!d) fail(`${dataDir} holds agent "${a.name}" without a ready ${f.filename}: not the corpus of --chunks ${args.chunks}`);
        f.documentId = d.id;
        f.chunkCount = d.chunk_count;
      }
    }
    log(`reusing the corpus in ${dataDir}: the ingest is not run again`);
  } else {
    if (agents.some((a) => existing.has(a.name))) fail(`${dataDir} holds part of a corpus: use an empty directory or one a run with --chunks ${args.chunks} --stop-after-ingest made`);
    for (const a of agents) a.id = (await http(`${base}/api/agents`, json("POST", { name: a.name, tools: ["document_search"] }))).id;
  }

  // ---- ingest through the app, in rounds, each followed by the same vectors added straight to Chroma
  /** The agents' upload requests, interleaved as several teams uploading at once would send them. */
  const uploadBatches = (list) => {
    const batches = [];
    for (let i = 0; batches.length === 0 || list.some((a) => i < a.articles.length); i += FILES_PER_REQUEST) {
      for (const a of list) if (i < a.articles.length) batches.push({ agent: a, files: a.articles.slice(i, i + FILES_PER_REQUEST) });
    }
    return batches;
  };
  /** Sends the requests with `--parallel-uploads` of them in flight; returns the chunks indexed. */
  const sendUploads = async (batches) => {
    let indexed = 0;
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const b = batches[next++];
        const form = new FormData();
        for (const f of b.files) form.append("files", new Blob([f.text], { type: "text/markdown" }), f.filename);
        const body = await http(`${base}/api/agents/${b.agent.id}/documents`, { method: "POST", body: form }, [201]);
        for (const d of body.documents) {
          if (d.status !== "ready") throw new Error(`${d.filename} was not indexed: ${d.message}`);
          const f = b.files.find((x) => x.filename === d.filename);
          f.documentId = d.document_id;
          f.chunkCount = d.chunk_count;
          indexed += d.chunk_count;
        }
        if (next % 25 === 0) log(`ingest: ${indexed} chunks indexed`);
      }
    };
    await Promise.all(Array.from({ length: args.parallelUploads }, worker));
    return indexed;
  };
  /**
   * One upload job per agent, all at once, as people importing a folder each from the upload
   * page: the first request starts the job with `expected_files`, the others (50 files each)
   * follow one after another as the app takes them; then the job is polled until it ends.
   */
  let progressRequests = 0;
  const sendJobs = async (parts) => {
    let indexed = 0;
    const formOf = (files) => {
      const form = new FormData();
      for (const f of files) form.append("files", new Blob([f.text], { type: "text/markdown" }), f.filename);
      return form;
    };
    await Promise.all(
      parts.map(async ({ agent, files }) => {
        const groups = [];
        for (let i = 0; i < files.length; i += JOB_REQUEST_FILES) groups.push(files.slice(i, i + JOB_REQUEST_FILES));
        const first = formOf(groups[0]);
        first.set("expected_files", String(files.length));
        const job = await http(`${base}/api/agents/${agent.id}/uploads`, { method: "POST", body: first }, [202]);
        for (const g of groups.slice(1)) await http(`${base}/api/agents/${agent.id}/uploads/${job.id}`, { method: "POST", body: formOf(g) }, [202]);
        // Waited for as a command-line import waits (?wait answers when the job ends), or with
        // --poll-ms followed as the page follows a long upload (only the files being indexed
        // listed); then read once in full.
        let state;
        do {
          if (args.pollMs > 0) await new Promise((r) => setTimeout(r, args.pollMs));
          state = await http(`${base}/api/agents/${agent.id}/uploads/${job.id}?files=active${args.pollMs > 0 ? "" : "&wait=60"}`);
          progressRequests++;
        } while (!state.finished);
        state = await http(`${base}/api/agents/${agent.id}/uploads/${job.id}`);
        if (state.files.length !== files.length) throw new Error(`upload job ${job.id} has ${state.files.length} of ${files.length} files`);
        for (const [i, p] of state.files.entries()) {
          if (p.result?.status !== "ready") throw new Error(`${p.filename} was not indexed: ${p.result?.message}`);
          files[i].documentId = p.result.document_id;
          files[i].chunkCount = p.result.chunk_count;
          indexed += p.result.chunk_count;
        }
      }),
    );
    return indexed;
  };
  /** The round's share of each agent's articles, for --via jobs. */
  const jobParts = (list, r, rounds) =>
    list
      .map((a) => ({ agent: a, files: a.articles.slice(Math.floor((r * a.articles.length) / rounds), Math.floor(((r + 1) * a.articles.length) / rounds)) }))
      .filter((p) => p.files.length > 0);
  const upload = (list) => (args.via === "jobs" ? sendJobs(jobParts(list, 0, 1)) : sendUploads(uploadBatches(list)));

  /** The app's collection, straight from Chroma (it exists once the first upload is indexed). */
  let appSide = null;
  const appTarget = async () => {
    if (appSide) return appSide;
    const collections = await http(`${chromaApi}/collections`);
    const appCollection = collections.find((c) => c.metadata && c.metadata.embedding_dimension != null && String(c.name).startsWith("kb-"));
    if (!appCollection) throw new Error(`no app collection among ${collections.map((c) => c.name).join(", ")}`);
    const dim = Number(appCollection.metadata.embedding_dimension);
    const preflight = await http(`${chromaUrl.replace(/\/$/, "")}/api/v2/pre-flight-checks`);
    // As the app's Chroma client does: embeddings travel as base64 float32 when the server takes it.
    const base64 = preflight.supports_base64_encoding === true;
    log(`collection ${appCollection.name}: ${dim} dimensions; Chroma max batch size ${preflight.max_batch_size}, base64 embeddings ${base64}`);
    appSide = { collection: appCollection, dim, maxBatch: preflight.max_batch_size, base64 };
    return appSide;
  };
  const encode = (v) => (appSide.base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v);
  const filler = "lorem ipsum support article text ".repeat(40);
  let lens = null; // `${document_id}#${chunk_index}` -> chunk length, for the add with text
  /** A scratch collection with the app's HNSW settings, for the raw adds. */
  const createScratch = async () => {
    const { collection, dim } = await appTarget();
    return http(
      `${chromaApi}/collections`,
      json("POST", {
        name: `bench-scratch-${process.pid}-${Date.now()}`,
        configuration: { hnsw: collection.configuration_json?.hnsw ?? { space: "cosine" } },
        metadata: { embedding_dimension: dim, distance_space: "cosine" },
      }),
    );
  };
  const dropScratch = (scratch) => http(`${chromaApi}/collections/${scratch.name}`, { method: "DELETE" }, [200, 204]).catch((e) => log(`scratch collection not deleted: ${e.message}`));
  /**
   * Adds the app's vectors [from, to) again, with their metadata, to a scratch collection in
   * batches of up to Chroma's max batch size (a batch past the server's payload limit, 413, is
   * split in two and sent again, untimed until accepted). The vectors are read from the app's
   * collection in the order it added them (untimed): how hard an add is for the index depends on
   * the vectors, and clustered text embeddings cost Chroma more than random ones. `withText`
   * also stores an 800-character document per vector, as a client that keeps chunk text in
   * Chroma would; the app keeps it in SQLite. Returns the milliseconds spent in add requests.
   */
  const rawAddRange = async (scratch, from, to, withText) => {
    const { collection, maxBatch } = await appTarget();
    let batch = maxBatch;
    let addMs = 0;
    let added = from;
    while (added < to) {
      const slice = await http(
        `${chromaApi}/collections/${collection.id}/get`,
        json("POST", { limit: Math.min(batch, to - added), offset: added, include: ["embeddings", "metadatas"] }),
      );
      if (slice.ids.length === 0) throw new Error(`the app's collection ended after ${added} of ${to} vectors`);
      // The body is built before the clock starts: this measures Chroma's add, not our JSON.
      const body = JSON.stringify({
        ids: slice.ids.map((_, j) => `raw${added + j}`),
        embeddings: slice.embeddings.map(encode),
        metadatas: slice.metadatas,
        ...(withText ? { documents: slice.metadatas.map((m) => filler.slice(0, lens.get(`${m.document_id}#${m.chunk_index}`) ?? CHUNK_SIZE)) } : {}),
      });
      const t0 = performance.now();
      const res = await fetch(`${chromaApi}/collections/${scratch.id}/add`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      const text = await res.text();
      const took = performance.now() - t0;
      if (res.status === 413 && batch > 1) {
        batch = Math.ceil(batch / 2);
        log(`raw add: ${slice.ids.length} vectors (${Math.round(body.length / 1e6)} MB) is past Chroma's payload limit; batches of ${batch}`);
        continue;
      }
      if (res.status !== 200 && res.status !== 201) throw new Error(`Chroma add answered ${res.status}: ${text.slice(0, 400)}`);
      addMs += took;
      added += slice.ids.length;
    }
    return addMs;
  };

  // The app's ingest and the raw add take turns, round by round, so that a slower or faster
  // spell of a shared machine weighs on both sides alike; the scratch collection grows round by
  // round as the app's does. Each round's raw add sends the vectors the app added in that round.
  const allBatches = uploadBatches(agents);
  const rounds = args.via === "jobs" ? INGEST_ROUNDS : Math.max(1, Math.min(INGEST_ROUNDS, Math.floor(allBatches.length / args.parallelUploads)));
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
          log(`round ${r + 1} of ${rounds}: ${indexed - before} chunks, app ${appRate.toFixed(0)}/s (${indexed} in all; Chroma ${chromaMb()} MB, ${Math.round(memAvailableMb())} MB available)`);
          continue;
        }
        pairedChunks += indexed - before;
        pairedIngestMs += roundMs;
        scratch ??= await createScratch();
        const roundRawMs = await rawAddRange(scratch, before, indexed, false);
        rawMs += roundRawMs;
        rawAddChromaCpu += cpuNow(dataDir).chroma - cpu1.chroma;
        log(`round ${r + 1} of ${rounds}: ${indexed - before} chunks, app ${appRate.toFixed(0)}/s, raw add ${((indexed - before) / (roundRawMs / 1000)).toFixed(0)}/s (Chroma ${chromaMb()} MB, ${Math.round(memAvailableMb())} MB available)`);
      }
    } finally {
      if (scratch) await dropScratch(scratch);
    }
    log(`ingest: ${indexed} chunks in ${(ingestMs / 1000).toFixed(1)} s; raw add of the first ${pairedChunks} vectors ${(rawMs / 1000).toFixed(1)} s, the app's ${(pairedIngestMs / 1000).toFixed(1)} s`);

    // The same vectors once more, each with an 800-character text, in one pass.
    const chunkTexts = [];
    for (const a of agents) for (const f of a.articles) for (let i = 0; i < f.chunkCount; i++) chunkTexts.push({ doc: f.documentId, index: i, len: f.lens[i] ?? CHUNK_SIZE });
    lens = new Map(chunkTexts.map((c) => [`${c.doc}#${c.index}`, c.len]));
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
      ? [["chunks", indexed], ["ingest", `reused from ${dataDir}`]]
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
          ["ingest_progress_requests", progressRequests],
        ];
  if (args.stopAfterIngest) {
    for (const [k, v] of ingestFigures()) console.log(`${k}: ${v}`);
    return;
  }

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
      const body = JSON.stringify({ query_embeddings: [pick(nearVectors.get(a.id), qrand)], n_results: TOP_K, where: { agent_id: a.id }, include: ["distances"] });
      const t0 = performance.now();
      await http(`${chromaApi}/collections/${appSide.collection.id}/query`, { method: "POST", headers: { "Content-Type": "application/json" }, body }, [200]);
      out.push(performance.now() - t0);
    }
    return out;
  };
  // The same query scoped by the agent's chunk ids instead of the filter, as the app sends it
  // (lib/retrieval/id-scope.ts): Chroma's cost for the scope the app's search pays now.
  const idsOf = new Map(agents.map((a) => [a.id, JSON.stringify(a.articles.flatMap((f) => Array.from({ length: f.chunkCount }, (_, i) => `doc${f.documentId}#${i}`)))]));
  const rawIdsLatencies = async (list, n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = list[i % list.length];
      const body = `{"query_embeddings":[${JSON.stringify(pick(nearVectors.get(a.id), qrand))}],"n_results":${TOP_K},"include":["distances"],"ids":${idsOf.get(a.id)}}`;
      const t0 = performance.now();
      await http(`${chromaApi}/collections/${appSide.collection.id}/query`, { method: "POST", headers: { "Content-Type": "application/json" }, body }, [200]);
      out.push(performance.now() - t0);
    }
    return out;
  };
  // One untimed call per agent on each side: the first search builds the agent's corpus counts.
  await searchLatencies(agents, agents.length);
  await rawLatencies(agents, agents.length);
  await rawIdsLatencies(agents, agents.length);

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

  // ---- the inspector on a large agent
  const target = large[0];
  const inspect = [];
  if (runs("inspect")) {
    for (let i = 0; i < INSPECTS; i++) {
      const f = pick(target.articles, qrand);
      const query = queryFrom(qrand, f, int(4, 7, qrand));
      const t0 = performance.now();
      await http(`${base}/api/agents/${target.id}/inspect`, json("POST", { query, top_k: TOP_K, expected_document_id: f.documentId }), [200]);
      inspect.push(performance.now() - t0);
    }
    log(`inspections done: p50 ${ms(percentile(inspect, 50))} ms`);
  }

  // ---- recall evaluation of 1,000 pairs on a large agent
  let evalSeconds = Number.NaN;
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
    if (imported.rejected?.length) throw new Error(`${imported.rejected.length} pairs rejected, e.g. ${JSON.stringify(imported.rejected[0])}`);
    const evalStarted = performance.now();
    const run = await http(`${base}/api/agents/${target.id}/evals`, json("POST", { k: TOP_K }), [200, 201]);
    evalSeconds = (performance.now() - evalStarted) / 1000;
    log(`evaluation of ${run.n_pairs} pairs: ${evalSeconds.toFixed(1)} s, recall@${TOP_K} ${run.recall_at_k?.[String(TOP_K)]}, MRR ${run.mrr}`);
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
    log(`searches during an upload of ${extra.chunks} chunks: ${underIngest.length}, p95 ${ms(percentile(underIngest, 95))} ms (raw ${ms(percentile(rawUnderIngest, 95))})`);
  }

  // ---- a rebuild of the vector index (a new collection built from the stored vectors), with
  // small uploads one after another meanwhile: how long a write waits while it runs
  const probeAgent = (await http(`${base}/api/agents`, json("POST", { name: "Bench writes during recovery", tools: ["document_search"] }))).id;
  let probeN = 0;
  const smallUpload = async () => {
    const form = new FormData();
    form.append("files", new Blob([`Probe note ${probeN}: written while the index recovers (probe${probeN}x).`], { type: "text/plain" }), `probe-${probeN++}.txt`);
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
  if (!rebuildSkipped && args.rebuildWithinMin !== null && runMin > args.rebuildWithinMin) rebuildSkipped = `skipped: reached after ${runMin.toFixed(0)} minutes (--rebuild-within ${args.rebuildWithinMin})`;
  if (!rebuildSkipped && availableMb < chromaNowMb + 2048) rebuildSkipped = `skipped: Chroma holds ${chromaNowMb} MB, the machine has ${availableMb} MB available, a second copy needs about ${chromaNowMb}`;
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
    log(`index rebuilt: ${rebuilt.last_vectors} vectors in ${rebuildSeconds.toFixed(1)} s; ${duringRebuild.length} uploads meanwhile, the longest ${Math.round(rebuildUploadMaxMs)} ms`);
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
    const searchOf = (agentId, query) => http(`${base}/api/agents/${agentId}/documents/search`, json("POST", { query, top_k: 5 }), [200, 503]);
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
      if (backAt !== null && correctS !== null && idx?.recheck?.state === "idle" && idx.recheck.last_finished_at > killedIso && idx.rebuild.state === "idle") {
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
    log(`20 MB file: ${doc.chunk_count} chunks in ${seconds.toFixed(1)} s; app RSS ${Math.round(before / 1024)} -> peak ${Math.round(peak / 1024)} MB`);
    return { chunks: doc.chunk_count, seconds, growthMb: Math.round((peak - before) / 1024) };
  };
  let big = { chunks: null, seconds: Number.NaN, growthMb: null };
  let bigAgain = big;
  if (runs("large-file")) {
    big = await uploadLarge(0);
    bigAgain = await uploadLarge(1);
  }

  // ---- a restart: time to a healthy answer, then the first search (counts loaded from disk)
  let restartHealthS = Number.NaN;
  let firstSearchMs = Number.NaN;
  if (runs("restart")) {
    sampler.sample();
    log("restarting the app");
    launcher.kill("SIGTERM");
    await Promise.race([launcherExited, new Promise((r) => setTimeout(r, 30_000))]);
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
    ["small_agent_search_p50_ms", ms(p50(smallSearch))],
    ["small_agent_overhead_ratio", ratio(p50(smallSearch) / p50(smallRaw))],
    ["inspect_p50_ms", ms(p50(inspect))],
    ["inspect_to_search_ratio", ratio(p50(inspect) / p50(search))],
    ["search_p95_ms_under_ingest", ms(percentile(underIngest, 95))],
    ["under_ingest_p95_ratio", ratio(percentile(underIngest, 95) / percentile(search, 95))],
    ["raw_query_p95_ms", ms(percentile(raw, 95))],
    ["raw_query_p95_ms_under_ingest", ms(percentile(rawUnderIngest, 95))],
    ["raw_under_ingest_p95_ratio", ratio(percentile(rawUnderIngest, 95) / percentile(raw, 95))],
    ["eval_1000_pairs_s", Math.round(evalSeconds * 100) / 100],
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
  for (const [k, v] of figures) console.log(`${k}: ${!runs(phaseOf(k)) ? "not run (--only)" : Number.isNaN(v) ? "n/a (a phase it needs was not run)" : v}`);
}

/** The phase a figure comes from (PHASES), or null for the run's own. */
function phaseOf(key) {
  if (/under_ingest/.test(key)) return "under-ingest";
  if (/^inspect/.test(key)) return "inspect";
  if (/^(search|raw_query|raw_ids|small_agent)/.test(key)) return "search";
  if (/^eval/.test(key)) return "eval";
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
