import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { logTightening, tightenDataDir } from "./data-dir";

// A DATA_DIR that does not exist yet, below this file's temporary one; env() reads it lazily.
const dataDir = path.join(process.env.DATA_DIR!, "not", "yet");
process.env.DATA_DIR = dataDir;

describe("the data directory", () => {
  it("is created readable by this user only, and so are the database and its journal", async () => {
    const before = process.umask(0o022);
    try {
      const { db } = await import("./client");
      db().prepare("INSERT INTO agents (name, created_at, updated_at) VALUES ('private', 'x', 'x')").run();
      const mode = (p: string) => fs.statSync(p).mode & 0o777;
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(path.dirname(dataDir))).toBe(0o700);
      expect(mode(path.join(dataDir, "kb.sqlite"))).toBe(0o600);
      expect(mode(path.join(dataDir, "kb.sqlite-wal"))).toBe(0o600);
    } finally {
      process.umask(before);
    }
  });
});

describe("tightening an existing data directory", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "kb-modes-"));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const mode = (p: string) => fs.lstatSync(p).mode & 0o777;
  let n = 0;
  const install = () => {
    const dir = path.join(root, `install-${++n}`);
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, "kb.sqlite"), "");
    fs.chmodSync(path.join(dir, "kb.sqlite"), 0o644);
    return dir;
  };

  it("never changes the target of a link, nor a folder or fifo under one of the app's names", () => {
    const dir = install();
    const outside = path.join(root, `outside-${n}`);
    fs.writeFileSync(outside, "someone else's");
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(dir, "session-salt"));
    fs.mkdirSync(path.join(dir, "unclean-restarts-checked"), { mode: 0o755 });
    fs.chmodSync(path.join(dir, "unclean-restarts-checked"), 0o755);
    execFileSync("mkfifo", ["-m", "644", path.join(dir, "kb.sqlite-journal")]);

    const t = tightenDataDir(dir);
    expect(t).toEqual({ tightened: ["the folder 755 -> 700", "kb.sqlite 644 -> 600"], failed: [] });
    expect(mode(outside)).toBe(0o644);
    expect(mode(path.join(dir, "unclean-restarts-checked"))).toBe(0o755);
    expect(mode(path.join(dir, "kb.sqlite-journal"))).toBe(0o644);
    // Tight already: nothing to do, nothing logged.
    expect(tightenDataDir(dir)).toEqual({ tightened: [], failed: [] });
  });

  it("says in the log what it could not tighten, and how, instead of stopping the app", () => {
    const dir = install();
    const owner = fs.statSync(dir).uid;
    const refuse = () => {
      throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
    };
    // Another user's folder: chmod is refused (root would succeed, so the refusal is injected).
    const t = tightenDataDir(dir, { fchmod: refuse, uid: owner + 1 });
    expect(t.tightened).toEqual([]);
    expect(t.failed).toEqual([
      `the folder stays 755 (EPERM, owned by uid ${owner} while the app runs as uid ${owner + 1})`,
      `kb.sqlite stays 644 (EPERM, owned by uid ${owner} while the app runs as uid ${owner + 1})`,
    ]);
    expect(mode(dir)).toBe(0o755);
    const lines: { log: string[]; warn: string[] } = { log: [], warn: [] };
    logTightening(dir, t, { log: (l: string) => lines.log.push(l), warn: (l: string) => lines.warn.push(l) });
    expect(lines.log).toEqual([]);
    expect(lines.warn).toHaveLength(1);
    expect(lines.warn[0]).toContain(`DATA_DIR ${dir} is open to other users and could not be tightened`);
    expect(lines.warn[0]).toContain(`run: chmod 700 ${dir} && chmod 600 ${dir}/kb.sqlite*`);
  });
});
