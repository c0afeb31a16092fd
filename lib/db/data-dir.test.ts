import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

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
