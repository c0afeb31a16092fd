#!/usr/bin/env node
// `npm start`: checks the configuration, builds if the sources changed, starts the
// embedded Chroma unless CHROMA_URL is set, serves the app on HOST (127.0.0.1 by default),
// and seeds the demo agent on the first start with an empty DATA_DIR (health says "starting"
// until it is whole; a seeding cut short resumes on the next start). Every child runs
// under a watchdog (scripts/supervise.mjs): it dies with this process even on SIGKILL;
// a crashed app is restarted; SIGTERM/SIGINT stop the app, then Chroma, then exit 0.
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConfigError, parseEnv } from "../lib/env.mjs";
import { openAccessWarning } from "../lib/auth/start-warning.mjs";
import { languagesProblem } from "../lib/extract/ocr-languages.mjs";
import { freePort, startChroma } from "./chroma-server.mjs";
import { planDemoSeed, seedDemo } from "./demo-seed.mjs";
import { accessRefusal, localUrl, nextArgs } from "./launch-options.mjs";
import { describeExit, spawnWatched, stopOnSignals, supervise } from "./supervise.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dev = process.argv.includes("--dev");
// For tests of the first start: seeding stops once the demo agent exists, until SIGUSR2.
const holdDemoSeed = process.argv.includes("--hold-demo-seed");
const log = (msg) => console.log(`[kb-inspector] ${msg}`);

let env;
try {
  env = parseEnv(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

// Before anything is built or started: an app open to the network needs a password, and OCR
// the data of each language it is told to read (named now, not at the first image uploaded).
const refusal = accessRefusal(env) ?? languagesProblem(env.OCR_LANGUAGES);
if (refusal) {
  console.error(refusal);
  process.exit(1);
}
const openWarning = openAccessWarning(env);
if (openWarning) console.warn(openWarning.replace(/^/gm, "[kb-inspector] "));

let build = null;
let chroma = null;
let app = null;
const signals = stopOnSignals(() => [build, app, chroma], log);
// Once a signal is being handled, the start-up sequence goes no further.
const halted = () => new Promise(() => {});

const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
const childEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", DATA_DIR: env.DATA_DIR };

/** A fingerprint of everything the build depends on, to rebuild only when it changed. */
function sourceFingerprint() {
  const hash = createHash("sha256");
  const walk = (p) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name));
    } else if (!p.endsWith(".test.ts")) {
      hash.update(`${path.relative(root, p)}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  for (const p of [
    "app",
    "pages",
    "components",
    "lib",
    "public",
    "instrumentation.ts",
    "proxy.ts",
    "next.config.ts",
    "package-lock.json",
    "postcss.config.mjs",
    "tailwind.config.ts",
    "tsconfig.json",
  ]) {
    walk(path.join(root, p));
  }
  return hash.digest("hex");
}

async function buildIfNeeded() {
  const stamp = path.join(root, ".next", "kb-source-fingerprint");
  const fingerprint = sourceFingerprint();
  const built =
    fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === fingerprint;
  if (built) return;
  log("building the app (first start or sources changed)...");
  build = spawnWatched(process.execPath, [nextBin, "build"], { cwd: root, env: childEnv });
  const exit = await build.closed;
  build = null;
  if (signals.stopping()) await halted();
  if (exit.code !== 0) {
    console.error(`The build failed (${describeExit(exit)}); see the output above.`);
    process.exit(exit.code || 1);
  }
  fs.writeFileSync(stamp, fingerprint);
}

const firstStart = !fs.existsSync(path.join(env.DATA_DIR, "kb.sqlite"));
// Articles, questions and token hashes live here: only this user may read them.
fs.mkdirSync(env.DATA_DIR, { recursive: true, mode: 0o700 });
// Decided, and its marker written, before the server answers its first health check.
const demo = planDemoSeed({ dataDir: env.DATA_DIR, firstStart, demo: env.KB_DEMO, signedIn: Boolean(env.ADMIN_PASSWORD) });
if (!dev) await buildIfNeeded();

// The embedded Chroma and the app start side by side: a large index takes Chroma a while to
// load (24 s at 100,000 chunks), and meanwhile the app already answers, its health check and
// banner saying that Chroma does not answer yet.
let chromaStarting = null;
if (!env.CHROMA_URL) {
  const port = env.CHROMA_PORT ?? (await freePort());
  childEnv.CHROMA_URL = `http://127.0.0.1:${port}`;
  log(`starting the embedded Chroma (data in ${path.join(env.DATA_DIR, "chroma")})...`);
  chromaStarting = startChroma({ dataDir: path.join(env.DATA_DIR, "chroma"), port, log });
  chromaStarting.catch(() => {}); // handled below, once the app is started
}

log(`serving the app on ${localUrl({ host: env.HOST, port: env.PORT })} (HOST=${env.HOST})`);
app = supervise({
  name: "the app (next-server)",
  command: process.execPath,
  // Loaded first, so even a request taken while Next starts carries the address it came from.
  args: [
    "--import",
    pathToFileURL(path.join(root, "scripts", "stamp-peers.mjs")).href,
    nextBin,
    ...nextArgs({ dev, port: env.PORT, host: env.HOST }),
  ],
  cwd: root,
  env: childEnv,
  log,
  // A crash loop is not fixed by restarting forever: exit non-zero and let a process manager decide.
  onGiveUp: async () => {
    console.error("[kb-inspector] the app keeps exiting; stopping Chroma and giving up (see the output above).");
    await chroma?.stop();
    process.exit(1);
  },
});

if (chromaStarting) {
  try {
    chroma = await chromaStarting;
  } catch (err) {
    if (signals.stopping()) await halted();
    console.error(`Could not start the embedded Chroma: ${err.message}`);
    await app.stop();
    process.exit(1);
  }
  if (signals.stopping()) {
    await chroma.stop();
    await halted();
  }
  log(`Chroma is answering at ${chroma.url}`);
}

if (demo === "signed-in") {
  // A shared, signed-in install starts empty: the launcher holds no credentials to seed it with.
  log("no demo agent: ADMIN_PASSWORD is set (sign in and create agents from the start page)");
} else if (demo === "seed") {
  const hold = async (stage) => {
    if (!holdDemoSeed) return;
    const released = new Promise((resolve) => process.once("SIGUSR2", resolve));
    log(`demo seeding held: ${stage} (send SIGUSR2 to go on)`);
    await released;
  };
  seedDemo({
    base: localUrl({ host: env.HOST, port: env.PORT }),
    demoDir: path.join(root, "demo"),
    dataDir: env.DATA_DIR,
    log,
    hold,
  }).catch((err) => console.error(`[kb-inspector] the demo agent could not be created: ${err.message} (the next start tries again)`));
}
