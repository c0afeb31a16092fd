// The processes a run started, found by their DATA_DIR, and what they use (memory, CPU).
import fs from "node:fs";
import net from "node:net";
import { SAMPLE_MS } from "./options.mjs";

export function freePort(avoid = new Set()) {
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
export function ownProcesses(dataDir) {
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

export function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The machine's memory still available to new allocations (MemAvailable), in MB. */
export function memAvailableMb() {
  const m = /MemAvailable:\s+(\d+)\s+kB/.exec(fs.readFileSync("/proc/meminfo", "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

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
export function cpuNow(dataDir) {
  const out = { app: 0, chroma: 0 };
  for (const p of ownProcesses(dataDir)) {
    if (isNextServer(p)) out.app += cpuSeconds(p.pid);
    else if (isChroma(p)) out.chroma += cpuSeconds(p.pid);
  }
  return out;
}

export function isNextServer(p) {
  return (p.cmdline[0] ?? "").startsWith("next-server");
}
export function isChroma(p) {
  const i = p.cmdline.findIndex((a) => a.endsWith("cli.mjs"));
  return i >= 0 && p.cmdline[i + 1] === "run";
}

export class Sampler {
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
