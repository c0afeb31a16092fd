// The app under measurement: started on its embedded defaults in the run's DATA_DIR on a free
// port, restarted by the restart phase, and stopped at the end with everything it started.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HEALTH_TIMEOUT_MS, args, log } from "./options.mjs";
import { Sampler, freePort, isChroma, ownProcesses, rssKb } from "./processes.mjs";

const root = path.resolve(import.meta.dirname, "..", "..", "..");

export const dataDir = args.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-"));
if (args.dataDir) fs.mkdirSync(dataDir, { recursive: true });
let launcher = null;
let launcherExited = null;
/** The peak memory of the app and of Chroma, sampled from the first start on. */
export let sampler = null;
let stopping = false;

export async function stopAll() {
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
export let chromaAnsweredS = null;
export let firstAnswerS = null;

export async function startApp() {
  // 3000 and 3100 are the app's and the end-to-end tests' usual ports: never take them.
  const port = await freePort(new Set([3000, 3100]));
  const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, KB_DEMO: "0", NEXT_TELEMETRY_DISABLED: "1" };
  for (const k of [
    "CHROMA_URL",
    "CHROMA_PORT",
    "ADMIN_PASSWORD",
    "VIEWER_PASSWORD",
    "EMBEDDING_PROVIDER",
    "HOST",
    "CHROMA_COLLECTION_PREFIX",
    "CHROMA_TENANT",
    "CHROMA_DATABASE",
  ])
    delete env[k];
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

export function startSampler() {
  sampler = new Sampler(dataDir);
  return sampler;
}

/** Stops the launcher (and with it the app and its Chroma), waiting for it at most 30 s. */
export async function stopLauncher() {
  launcher.kill("SIGTERM");
  await Promise.race([launcherExited, new Promise((r) => setTimeout(r, 30_000))]);
}

/** Chroma's resident memory now, in MB. */
export const chromaMb = () =>
  Math.round(
    Math.max(
      0,
      ...ownProcesses(dataDir)
        .filter(isChroma)
        .map((p) => rssKb(p.pid)),
    ) / 1024,
  );
