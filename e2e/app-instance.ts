import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findChroma } from "./spec-chroma";

/**
 * A second app on its own port and data directory, started with `npm start`'s launcher (the
 * build of the spec run is reused), for specs that kill processes or need other settings.
 */
export class AppInstance {
  readonly dataDir: string;
  readonly url: string;
  private launcher: ChildProcess | null = null;
  readonly log: string[] = [];

  constructor(
    readonly port: number,
    private readonly env: Record<string, string> = {},
    dataDir?: string,
  ) {
    this.dataDir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "kb-instance-"));
    // The word-vector cache the spec run's app already built: converting it again takes ~20 s.
    const shared = process.env.E2E_DATA_DIR && path.join(process.env.E2E_DATA_DIR, "cache");
    const own = path.join(this.dataDir, "cache");
    if (shared && fs.existsSync(shared) && !fs.existsSync(own)) fs.symlinkSync(shared, own);
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Starts the app and waits for /api/health: for it to answer 200, or with `answering`, to answer at all. */
  async start(timeoutMs = 120_000, { answering = false } = {}): Promise<void> {
    this.launcher = spawn(process.execPath, ["scripts/start.mjs"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, KB_DEMO: "0", NEXT_TELEMETRY_DISABLED: "1", ...this.env, PORT: String(this.port), DATA_DIR: this.dataDir },
    });
    const keep = (b: Buffer) => this.log.push(...b.toString().split("\n").filter(Boolean).slice(-50));
    this.launcher.stdout!.on("data", keep);
    this.launcher.stderr!.on("data", keep);
    await this.waitUntilHealthy(timeoutMs, answering);
  }

  async waitUntilHealthy(timeoutMs = 60_000, answering = false): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const ok = await fetch(`${this.url}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
        async (r) => {
          if (r.ok) return true;
          const body = await r.json().catch(() => null);
          // The launcher stamps every request from the first (scripts/stamp-peers.mjs): none is "starting".
          if (body?.error?.code === "starting")
            throw new Error(`the app took a request it could not tell the origin of: ${JSON.stringify(body)}`);
          return answering && r.status === 503 && body?.ok === false;
        },
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 300));
    }
    throw new Error(`the app at ${this.url} did not become healthy within ${timeoutMs} ms:\n${this.log.slice(-30).join("\n")}`);
  }

  /**
   * The whole app at once (launcher, server, Chroma), as a power cut or the OOM killer would:
   * every process started with this instance's DATA_DIR.
   */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const l = this.launcher;
    if (!l?.pid || l.exitCode !== null) return;
    const exited = new Promise((r) => l.once("exit", r));
    const targets = signal === "SIGKILL" ? this.processes() : [l.pid];
    for (const pid of targets) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
    await exited;
    // Wait until nothing of this instance is left, so the next start finds its ports free.
    // (A bound only for a process that never goes; a loaded machine can take a while.)
    for (let i = 0; i < 900 && this.processes().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    this.launcher = null;
  }

  /** Pids of every process started for this instance (they inherit its DATA_DIR). */
  processes(): number[] {
    const marker = `DATA_DIR=${this.dataDir}\0`;
    const pids: number[] = [];
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readFileSync(`/proc/${entry}/environ`, "latin1").includes(marker)) pids.push(Number(entry));
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    return pids;
  }

  /** Pid of the embedded Chroma server of this instance (not its watchdog). */
  chromaPid(): number | null {
    return findChroma(this.dataDir)?.pid ?? null;
  }

  async stop(): Promise<void> {
    await this.kill("SIGTERM");
    for (const pid of this.processes()) process.kill(pid, "SIGKILL");
  }

  remove(): void {
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}
