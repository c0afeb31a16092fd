import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { freePort } from "./chroma-server.mjs";
import { supervise } from "./supervise.mjs";

/**
 * Whether the process still runs. A zombie whose other threads have exited is gone (an
 * orphan's zombie may linger when nothing reaps it); a zombie leader with threads still
 * exiting is not, since those threads still hold its sockets.
 */
function alive(pid: number) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    const threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    return !(state === "Z" && threads <= 1) && state !== "X";
  } catch {
    return false;
  }
}

/** Running processes whose command line mentions `text` (the children and their watchdogs). */
function processesMentioning(text: string) {
  return fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes(text) && alive(Number(p));
      } catch {
        return false;
      }
    });
}

/** Whether something accepts connections on the port (an orphan keeping it is what breaks the next start). */
function listening(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-supervise-"));
const supervisor = pathToFileURL(path.join(import.meta.dirname, "supervise.mjs")).href;

/**
 * A parent process like the launcher: supervises an "app" and a "db" (each an HTTP server
 * on its port that notes SIGTERM and its exit in a log; the app takes 300 ms to exit)
 * and stops them in that order on a signal. Prints their pids once both listen.
 */
const FIXTURE = `
import fs from "node:fs";
import { stopOnSignals, supervise } from ${JSON.stringify(supervisor)};
const [logFile, appPort, dbPort] = process.argv.slice(2);
const child = (name, port, exitDelayMs) => \`
  const fs = require("fs");
  const note = (m) => fs.appendFileSync(\${JSON.stringify(logFile)}, m + "\\\\n");
  require("http").createServer().listen(\${port}, "127.0.0.1", () => note("\${name} listening"));
  process.on("SIGTERM", () => { note("\${name} got SIGTERM"); setTimeout(() => { note("\${name} exited"); process.exit(0); }, \${exitDelayMs}); });
\`;
const app = supervise({ name: "app", command: process.execPath, args: ["-e", child("app", appPort, 300)] });
const db = supervise({ name: "db", command: process.execPath, args: ["-e", child("db", dbPort, 0)] });
stopOnSignals(() => [app, db]);
const timer = setInterval(() => {
  const listening = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "";
  if (app.pid() && db.pid() && listening.includes("app listening") && listening.includes("db listening")) {
    clearInterval(timer);
    console.log(JSON.stringify({ app: app.pid(), db: db.pid() }));
  }
}, 20);
`;
const fixturePath = path.join(tmp, "parent.mjs");
fs.writeFileSync(fixturePath, FIXTURE);

const started: ChildProcess[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function startParent({ ownGroup = false } = {}) {
  const log = path.join(tmp, `log-${Math.random().toString(36).slice(2)}.txt`);
  const [appPort, dbPort] = [await freePort(), await freePort()];
  const parent = spawn(process.execPath, [fixturePath, log, String(appPort), String(dbPort)], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: ownGroup,
  });
  started.push(parent);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    parent.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const pids = await new Promise<{ app: number; db: number }>((resolve, reject) => {
    let out = "";
    parent.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]));
    });
    parent.on("exit", () => reject(new Error(`the parent exited early: ${out}`)));
  });
  const lines = () => fs.readFileSync(log, "utf8").trim().split("\n");
  return { parent, exited, pids, ports: [appPort, dbPort], lines, log };
}

describe("supervised children", () => {
  it("die with their parent even when it is SIGKILLed, and leave their ports closed", async () => {
    const { parent, exited, pids, ports, log } = await startParent();
    expect(alive(pids.app) && alive(pids.db)).toBe(true);
    expect(await listening(ports[0])).toBe(true);
    expect(processesMentioning(log)).toHaveLength(5); // the parent, two watchdogs, two children

    parent.kill("SIGKILL");
    await exited;
    await expect.poll(() => alive(pids.app) || alive(pids.db), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => listening(ports[0]), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => listening(ports[1]), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => processesMentioning(log), { timeout: 60_000 }).toEqual([]);
  });

  it("die with their parent when its whole process group is SIGKILLed", async () => {
    const { parent, exited, pids, ports } = await startParent({ ownGroup: true });
    process.kill(-parent.pid!, "SIGKILL");
    await exited;
    await expect.poll(() => alive(pids.app) || alive(pids.db), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => listening(ports[0]), { timeout: 60_000 }).toBe(false);
  });

  it("on SIGTERM stop the app first, then the db, and the parent exits 0", async () => {
    const { parent, exited, pids, lines } = await startParent();
    parent.kill("SIGTERM");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(lines().filter((l) => !l.endsWith("listening"))).toEqual(["app got SIGTERM", "app exited", "db got SIGTERM", "db exited"]);
    expect(alive(pids.app) || alive(pids.db)).toBe(false);
  });

  it("on Ctrl-C (SIGINT to the whole terminal group) stop in the same order, once each", async () => {
    const { parent, exited, lines } = await startParent({ ownGroup: true });
    process.kill(-parent.pid!, "SIGINT");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(lines().filter((l) => !l.endsWith("listening"))).toEqual(["app got SIGTERM", "app exited", "db got SIGTERM", "db exited"]);
  });

  it("a child that dies is restarted, and stop() ends it for good", async () => {
    // The supervisor's own timers (its back-off) are fake: "later" is run on demand, not slept through.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const logs: string[] = [];
    let restartScheduled!: () => void;
    const scheduled = new Promise<void>((resolve) => (restartScheduled = resolve));
    const child = supervise({
      name: "sleeper",
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      log: (m: string) => {
        logs.push(m);
        if (m.startsWith("restarting")) restartScheduled();
      },
      backoffMs: 100,
    });
    try {
      await expect.poll(() => child.pid(), { timeout: 60_000 }).toBeTruthy();
      const first = child.pid()!;
      process.kill(first, "SIGKILL");
      await scheduled;
      vi.advanceTimersByTime(100);
      await expect.poll(() => child.pid() !== undefined && child.pid() !== first, { timeout: 60_000 }).toBe(true);
      expect(alive(child.pid()!)).toBe(true);
      expect(logs).toEqual(["sleeper exited unexpectedly (signal SIGKILL)", "restarting sleeper in 100 ms"]);
    } finally {
      await child.stop();
    }
    const last = child.pid()!;
    expect(alive(last)).toBe(false);
    // Whatever the supervisor still had scheduled runs now: nothing starts the child again.
    vi.runAllTimers();
    expect(child.starts()).toBe(2);
    expect(logs).toHaveLength(2);
  });

  it("stop() during the back-off: the child is not started again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let restartScheduled!: () => void;
    const scheduled = new Promise<void>((resolve) => (restartScheduled = resolve));
    const child = supervise({
      name: "sleeper",
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      log: (m: string) => m.startsWith("restarting") && restartScheduled(),
      backoffMs: 100,
    });
    await expect.poll(() => child.pid(), { timeout: 60_000 }).toBeTruthy();
    process.kill(child.pid()!, "SIGKILL");
    await scheduled;
    await child.stop();
    vi.runAllTimers();
    expect(child.starts()).toBe(1);
  });

  it("gives up after too many crashes in the window, with growing delays", async () => {
    const logs: string[] = [];
    const gaveUp = new Promise<{ code: number | null }>((resolve) => {
      supervise({
        name: "crasher",
        command: process.execPath,
        args: ["-e", "process.exit(3)"],
        log: (m: string) => logs.push(m),
        backoffMs: 50,
        maxCrashes: 3,
        windowMs: 60_000,
        onGiveUp: resolve,
      });
    });
    expect(await gaveUp).toMatchObject({ code: 3 });
    expect(logs).toEqual([
      "crasher exited unexpectedly (code 3)",
      "restarting crasher in 50 ms",
      "crasher exited unexpectedly (code 3)",
      "restarting crasher in 100 ms",
      "crasher exited unexpectedly (code 3)",
      "crasher exited 3 times within 60 s; not restarting it",
    ]);
  });
});
