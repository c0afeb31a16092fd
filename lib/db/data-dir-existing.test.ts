import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";

// This file's DATA_DIR (test/setup.ts) stands for an install made before the app set modes.
const dataDir = process.env.DATA_DIR!;
const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe("an existing data directory", () => {
  it("is tightened on open: the folder to 0700, the database, its journal and the salt to 0600, nothing else", async () => {
    const before = process.umask(0o022);
    const logged = vi.spyOn(console, "log");
    let old: Database.Database | null = null;
    try {
      fs.chmodSync(dataDir, 0o755);
      // Made as an older release made it: with the umask, its journal left open beside it.
      old = new Database(path.join(dataDir, "kb.sqlite"));
      old.pragma("journal_mode = WAL");
      old.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('kept')");
      fs.writeFileSync(path.join(dataDir, "session-salt"), "0123456789abcdef0123456789abcdef");
      fs.writeFileSync(path.join(dataDir, "notes.txt"), "the operator's own file");
      const cache = fs.realpathSync(path.join(dataDir, "cache"));
      const cacheMode = mode(cache);
      for (const f of ["kb.sqlite", "kb.sqlite-wal", "kb.sqlite-shm", "session-salt"]) expect(mode(path.join(dataDir, f))).toBe(0o644);

      const { db } = await import("./client");
      db().prepare("INSERT INTO agents (name, created_at, updated_at) VALUES ('private', 'x', 'x')").run();

      expect(mode(dataDir)).toBe(0o700);
      for (const f of ["kb.sqlite", "kb.sqlite-wal", "kb.sqlite-shm", "session-salt"]) expect(mode(path.join(dataDir, f)), f).toBe(0o600);
      // Not the app's: the operator's file and the cache the link points at keep their modes.
      expect(mode(path.join(dataDir, "notes.txt"))).toBe(0o644);
      expect(mode(cache)).toBe(cacheMode);
      expect((db().prepare("SELECT text FROM notes").get() as { text: string }).text).toBe("kept");
      const lines = logged.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("made readable by this user only"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("the folder 755 -> 700");
      expect(lines[0]).toContain("kb.sqlite 644 -> 600");
      expect(lines[0]).toContain("session-salt 644 -> 600");
    } finally {
      old?.close();
      logged.mockRestore();
      process.umask(before);
    }
  });
});
