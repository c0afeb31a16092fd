// Starts and supervises a local Chroma server from the `chromadb` package's own CLI.
// Plain ESM so the launcher (scripts/start.mjs) and the test setup share it.
import { createRequire } from "node:module";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import { describeExit, spawnWatched } from "./supervise.mjs";

const require = createRequire(import.meta.url);

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function chromaCli() {
  // The package does not export its package.json, so walk up from its entry point.
  let dir = path.dirname(require.resolve("chromadb"));
  while (!fs.existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  return path.join(dir, "dist", "cli.mjs");
}

export async function waitForHeartbeat(url, timeoutMs = 30_000, isDead = () => false) {
  const deadline = Date.now() + timeoutMs;
  let lastError = "no answer";
  while (Date.now() < deadline) {
    if (isDead()) throw new Error(`Chroma exited before it answered at ${url}`);
    try {
      const res = await fetch(`${url}/api/v2/heartbeat`);
      if (res.ok) return;
      lastError = `HTTP ${res.status}`;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Chroma did not answer at ${url} within ${timeoutMs} ms (${lastError})`);
}

/**
 * Runs `chroma run --path dir --port port`, waits until it answers, and restarts it
 * when it dies unexpectedly. Returns { url, stop }.
 */
export async function startChroma({ dataDir, port, log = () => {}, restart = true }) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const chosenPort = port ?? (await freePort());
  const url = `http://127.0.0.1:${chosenPort}`;
  let child = null;
  let stopping = false;
  let exited = false;
  const logFile = fs.openSync(path.join(dataDir, "chroma.log"), "a");

  // A marker that Chroma is running over dataDir, removed when it stops cleanly. Found at a launch,
  // it means the last Chroma here was killed or crashed: the count in `unclean-restarts` goes up,
  // and the app checks that its index can still return every chunk (lib/index-upkeep/after-restart.ts).
  const running = path.join(dataDir, "running");
  const countUnclean = () => {
    if (!fs.existsSync(running)) return;
    const file = path.join(dataDir, "unclean-restarts");
    const n = Number(fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : 0) || 0;
    fs.writeFileSync(file, `${n + 1}\n`);
  };

  const launch = () => {
    exited = false;
    countUnclean();
    fs.writeFileSync(running, `${process.pid}\n`);
    // Through the watchdog: Chroma goes with this process even if it is SIGKILLed.
    const current = spawnWatched(
      process.execPath,
      [chromaCli(), "run", "--path", dataDir, "--host", "127.0.0.1", "--port", String(chosenPort)],
      {
        stdout: logFile,
        stderr: logFile,
        env: { ...process.env, ANONYMIZED_TELEMETRY: "False" },
        graceMs: 5000,
      },
    );
    child = current;
    current.closed.then((exit) => {
      if (child !== current) return;
      exited = true;
      if (stopping) return;
      log(`Chroma exited (${describeExit(exit)}); see ${path.join(dataDir, "chroma.log")}`);
      if (restart) {
        setTimeout(() => {
          if (stopping) return;
          log("restarting Chroma");
          launch();
        }, 1000);
      }
    });
  };

  let logClosed = false;
  const stop = async () => {
    stopping = true;
    const exit = await child?.stop();
    // Stopped by its SIGTERM: a clean exit. Killed after the grace period counts as unclean.
    if (exit && exit.signal !== "SIGKILL") fs.rmSync(running, { force: true });
    if (!logClosed) fs.closeSync(logFile);
    logClosed = true;
  };

  launch();
  try {
    await waitForHeartbeat(url, 30_000, () => exited && !restart);
  } catch (err) {
    await stop();
    throw err;
  }

  return { url, port: chosenPort, stop, pid: () => child?.pid() };
}
