// Child processes of the launcher: each runs through scripts/watchdog.mjs, so it dies with
// the launcher even when the launcher is SIGKILLed; the app is restarted when it crashes;
// on SIGTERM/SIGINT/SIGHUP they are stopped one after another, in the order given.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const WATCHDOG = fileURLToPath(new URL("./watchdog.mjs", import.meta.url));

const killGroup = (pid, signal) => {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: already gone.
  }
};

export const describeExit = ({ code, signal }) => (signal ? `signal ${signal}` : `code ${code}`);

/**
 * Starts `command args` in its own process group under a watchdog that ends the group when
 * this process ends, however it ends. `stdout`/`stderr` are "inherit", "ignore" or a file
 * descriptor. Returns { pid(), closed, stop() }: `closed` resolves with { code, signal } of
 * the command once it is gone; stop() sends SIGTERM, then SIGKILL after `graceMs`.
 */
export function spawnWatched(command, args, { cwd, env, stdout = "inherit", stderr = "inherit", graceMs = 10_000 } = {}) {
  const watchdog = spawn(process.execPath, [WATCHDOG, String(graceMs), command, ...args], {
    cwd,
    env,
    stdio: ["ignore", stdout, stderr, "ipc"],
    // Out of this process's group too: a SIGKILL to the launcher's whole group (as a test
    // runner or a process manager may send) must leave the watchdog alive to end the command.
    detached: true,
  });
  let pid;
  let exit = null;
  let done = false;
  watchdog.on("message", (m) => {
    if (m?.pid) pid = m.pid;
    if (m?.exit) exit = m.exit;
    if (m?.error) exit = { code: 127, signal: null, error: m.error };
  });
  watchdog.on("error", (err) => {
    exit ??= { code: 127, signal: null, error: err.message };
  });
  const closed = new Promise((resolve) => {
    watchdog.on("close", (code, signal) => {
      done = true;
      // A watchdog that was itself killed could not take its group down: do it here.
      if (signal && pid) killGroup(pid, "SIGKILL");
      resolve(exit ?? { code, signal });
    });
  });

  async function stop() {
    if (done) return closed;
    watchdog.kill("SIGTERM");
    const timer = setTimeout(() => {
      watchdog.kill("SIGKILL");
      if (pid) killGroup(pid, "SIGKILL");
    }, graceMs + 2_000);
    await closed;
    clearTimeout(timer);
    return closed;
  }

  return { pid: () => pid, closed, stop };
}

/**
 * Keeps `command args` running: when it exits without stop(), it is started again after
 * `backoffMs`, doubling per recent crash up to 30 s. After `maxCrashes` exits within
 * `windowMs` it is left stopped and `onGiveUp(exit)` is called, so the caller can exit
 * and let its own process manager take over. stop() resolves once the command is gone.
 */
export function supervise({
  name,
  command,
  args,
  log = () => {},
  maxCrashes = 5,
  windowMs = 60_000,
  backoffMs = 1_000,
  onGiveUp = () => {},
  ...spawnOptions
}) {
  let current = null;
  let stopping = false;
  let timer = null;
  let starts = 0;
  const crashes = [];

  const start = () => {
    starts++;
    const child = spawnWatched(command, args, spawnOptions);
    current = child;
    child.closed.then((exit) => {
      if (stopping || current !== child) return;
      const now = Date.now();
      crashes.push(now);
      while (crashes[0] <= now - windowMs) crashes.shift();
      log(`${name} exited unexpectedly (${describeExit(exit)}${exit.error ? `: ${exit.error}` : ""})`);
      if (crashes.length >= maxCrashes) {
        log(`${name} exited ${crashes.length} times within ${windowMs / 1000} s; not restarting it`);
        onGiveUp(exit);
        return;
      }
      const delay = Math.min(backoffMs * 2 ** (crashes.length - 1), 30_000);
      log(`restarting ${name} in ${delay} ms`);
      timer = setTimeout(() => {
        timer = null;
        if (!stopping) start();
      }, delay);
    });
  };
  start();

  return {
    pid: () => current?.pid(),
    starts: () => starts,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await current?.stop();
    },
  };
}

/**
 * On SIGTERM, SIGINT or SIGHUP, stops what `stoppables()` returns one after another (each
 * `stop()` awaited, null entries skipped), then exits 0; exits 1 if a stop failed. A second
 * signal exits at once (the watchdogs then end the children). Returns { stopping() }.
 */
export function stopOnSignals(stoppables, log = () => {}) {
  let stopping = false;
  const onSignal = async (signal) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: stopping`);
    try {
      for (const s of stoppables()) await s?.stop();
    } catch (err) {
      console.error(err);
      process.exit(1);
    }
    process.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, onSignal);
  return { stopping: () => stopping };
}
