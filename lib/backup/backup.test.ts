import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { listDocuments } from "@/lib/db/documents";
import { removeDocument } from "@/lib/ingest/remove";
import { retrieve } from "@/lib/retrieval/retrieve";
import { embedder } from "@/lib/embeddings/configured";
import { collectionFor } from "@/lib/vector-store/client";
import { queryAgent } from "@/lib/retrieval/index-candidates";
import { createBackup, MANIFEST, restoreFiles, verifyBackup } from "./files";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "kb-backup-test-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => path.join(root, `${name}-${++n}`);

const repo = path.resolve(import.meta.dirname, "../..");
/** Runs a TypeScript script of the repo as the CLI does, against another DATA_DIR and collection prefix on the tests' Chroma. */
function run(script: string, args: string[], dataDir: string, prefix: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", script, ...args], {
      cwd: repo,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        CHROMA_URL: inject("chromaUrl"),
        CHROMA_COLLECTION_PREFIX: prefix,
        EMBEDDING_PROVIDER: "local",
        KB_DEMO: "0",
      },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}
const restore = (dir: string, dataDir: string, prefix: string, ...flags: string[]) =>
  run("scripts/restore.ts", [dir, ...flags], dataDir, prefix);

const QUERIES = ["refund to my card", "reset my password", "first response time for premium customers", "invoice as pdf"];

async function agentWithArticles(name: string) {
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text, 60, 10);
  return agent;
}

describe("backup and restore", () => {
  it("restores into an empty DATA_DIR an app whose audit is clean and whose searches answer as before: same ids, same distances", async () => {
    const agent = await agentWithArticles("Backup search");
    const other = await agentWithArticles("Backup other");
    const served = await retrieve(agent.id, QUERIES, { topK: 5 });
    const chroma = await queryAgent(await collectionFor(embedder()), agent.id, await embedder().embed(QUERIES), 5);

    const dir = fresh("backup");
    const m = await createBackup(process.env.DATA_DIR!, dir, "test");
    expect(m.documents).toBeGreaterThanOrEqual(8);
    expect(m.missing_vector_copies).toBe(0);
    expect(m.files.map((f) => f.name)).toContain("kb.sqlite");

    const dataDir = fresh("restored");
    const prefix = `r${n}${Date.now().toString(36)}`;
    const restored = await restore(dir, dataDir, prefix);
    expect(restored.out).toMatch(/files checked and copied/);
    expect(restored.code, restored.out).toBe(0);
    fs.symlinkSync(inject("sharedCacheDir"), path.join(dataDir, "cache"));
    const searched = await run("test/search-data-dir.ts", [String(agent.id), ...QUERIES], dataDir, prefix);
    expect(searched.code, searched.out).toBe(0);
    const after = JSON.parse(searched.out.trim().split("\n").pop()!);
    expect(after.auditOk).toBe(true);
    const shape = (rs: { document_id: number; chunk_index: number; score: number }[][]) =>
      rs.map((r) => r.map((x) => [x.document_id, x.chunk_index]));
    expect(shape(after.served)).toEqual(shape(served));
    expect(after.served.flat().map((x: { score: number }) => x.score)).toEqual(served.flat().map((x) => expect.closeTo(x.score, 6)));
    expect(shape(after.chroma)).toEqual(shape(chroma));
    expect(after.chroma.flat().map((x: { score: number }) => x.score)).toEqual(chroma.flat().map((x) => expect.closeTo(x.score, 6)));
    // The other agent came back too, and nothing of it answers this agent's searches.
    expect(after.served.flat().every((x: { document_id: number }) => listDocuments(agent.id).some((d) => d.id === x.document_id))).toBe(
      true,
    );
    const copy = new Database(path.join(dataDir, "kb.sqlite"), { readonly: true });
    expect(
      (copy.prepare("SELECT COUNT(*) AS n FROM documents WHERE agent_id = ? AND status = 'ready'").get(other.id) as { n: number }).n,
    ).toBe(4);
    copy.close();

    // Not over data that is there, unless told to.
    const again = await restore(dir, dataDir, prefix);
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/is not empty; restore into an empty DATA_DIR, or pass --force/);
  });

  it("taken while uploads and deletes run, restores every document acknowledged before it began, consistently", async () => {
    const agent = await agentWithArticles("Backup busy");
    const acknowledged = listDocuments(agent.id).filter((d) => d.status === "ready");
    // Uploads and deletes go on while the backup is taken.
    const busy = [
      ...Array.from({ length: 12 }, (_, i) =>
        ingest(agent.id, `busy-${i}.md`, `Busy article ${i}. ${ARTICLES.refunds} Note ${i}.`, 60, 10),
      ),
      removeDocument(agent.id, acknowledged[0]!.id),
    ];
    const dir = fresh("busy");
    const backup = createBackup(process.env.DATA_DIR!, dir, "test");
    await Promise.all(busy);
    await backup;

    const dataDir = fresh("busy-restored");
    const restored = await restore(dir, dataDir, `b${n}${Date.now().toString(36)}`);
    expect(restored.code, restored.out).toBe(0);
    const copy = new Database(path.join(dataDir, "kb.sqlite"), { readonly: true });
    const ready = copy.prepare("SELECT id, chunk_count FROM documents WHERE agent_id = ? AND status = 'ready'").all(agent.id) as {
      id: number;
      chunk_count: number;
    }[];
    // Acknowledged before the backup began: all there, but the one deleted meanwhile may or may not be.
    for (const d of acknowledged.slice(1)) expect(ready.map((r) => r.id)).toContain(d.id);
    // Consistent: no document half there, each with all its chunks and vectors; none left indexing.
    for (const d of ready) {
      expect((copy.prepare("SELECT COUNT(*) AS n FROM chunks WHERE document_id = ?").get(d.id) as { n: number }).n).toBe(d.chunk_count);
      expect(
        (copy.prepare("SELECT COALESCE(SUM(count), 0) AS n FROM chunk_vectors WHERE document_id = ?").get(d.id) as { n: number }).n,
      ).toBe(d.chunk_count);
    }
    expect((copy.prepare("SELECT COUNT(*) AS n FROM documents WHERE status = 'indexing'").get() as { n: number }).n).toBe(0);
    copy.close();
  });

  it("refuses a truncated or altered backup, naming the file that failed its checksum, and restores nothing", async () => {
    await agentWithArticles("Backup damaged");
    const dir = fresh("damaged");
    await createBackup(process.env.DATA_DIR!, dir, "test");
    await expect(verifyBackup(dir)).resolves.toMatchObject({ format: "kb-inspector-backup" });
    const db = path.join(dir, "kb.sqlite");
    const bytes = fs.readFileSync(db);

    fs.writeFileSync(db, bytes.subarray(0, bytes.length - 4096));
    const dataDir = fresh("not-restored");
    const truncated = await restore(dir, dataDir, "never");
    expect(truncated.code).toBe(1);
    expect(truncated.out).toMatch(
      /kb\.sqlite failed its checksum: \d+ bytes where the manifest says \d+ \(truncated or altered\); nothing was restored/,
    );
    expect(fs.existsSync(dataDir)).toBe(false);

    const altered = Buffer.from(bytes);
    altered[altered.length - 100] ^= 0xff;
    fs.writeFileSync(db, altered);
    expect((await restore(dir, dataDir, "never")).out).toMatch(/kb\.sqlite failed its checksum: its SHA-256 differs/);
    expect(fs.existsSync(dataDir)).toBe(false);

    fs.rmSync(path.join(dir, MANIFEST));
    expect((await restore(dir, dataDir, "never")).out).toMatch(/has no manifest\.json: it is not a backup, or its backup did not finish/);
    await expect(createBackup(process.env.DATA_DIR!, dir, "test")).rejects.toThrow(/is not empty; back up into a new or empty folder/);
  });

  it("writes every file 0600, and the backup folder holds exactly the manifest's files; a restore keeps those modes", async () => {
    const before = process.umask(0o022);
    try {
      await agentWithArticles("Backup modes");
      const salt = path.join(process.env.DATA_DIR!, "session-salt");
      if (!fs.existsSync(salt)) fs.writeFileSync(salt, "0123456789abcdef0123456789abcdef");
      fs.chmodSync(salt, 0o644);
      const mode = (p: string) => fs.statSync(p).mode & 0o777;

      const dir = fresh("modes");
      const m = await createBackup(process.env.DATA_DIR!, dir, "test");
      expect(m.files.map((f) => f.name).sort()).toEqual(["kb.sqlite", "session-salt"]);
      expect(fs.readdirSync(dir).sort()).toEqual([...m.files.map((f) => f.name), MANIFEST].sort());
      expect(mode(dir)).toBe(0o700);
      for (const name of fs.readdirSync(dir)) expect(mode(path.join(dir, name)), name).toBe(0o600);
      // Reading the copy (as a restore's check does) leaves nothing beside it either.
      const copy = new Database(path.join(dir, "kb.sqlite"), { readonly: true });
      copy.prepare("SELECT COUNT(*) FROM documents").get();
      copy.close();
      expect(fs.readdirSync(dir).sort()).toEqual([...m.files.map((f) => f.name), MANIFEST].sort());

      // Into an empty DATA_DIR made by hand with the umask, from a backup whose files were loosened.
      for (const name of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, name), 0o644);
      const dataDir = fresh("modes-restored");
      fs.mkdirSync(dataDir, { mode: 0o755 });
      const t = await restoreFiles(dir, await verifyBackup(dir), dataDir, false);
      expect(mode(dataDir)).toBe(0o700);
      expect(fs.readdirSync(dataDir).sort()).toEqual(m.files.map((f) => f.name).sort());
      for (const name of fs.readdirSync(dataDir)) expect(mode(path.join(dataDir, name)), name).toBe(0o600);
      expect(t.failed).toEqual([]);
    } finally {
      process.umask(before);
    }
  });

  it("with --force, replaces what the DATA_DIR held, down to the count of Chroma restarts checked", async () => {
    await agentWithArticles("Backup force");
    const dir = fresh("force");
    const m = await createBackup(process.env.DATA_DIR!, dir, "test");
    const dataDir = fresh("force-restored");
    fs.mkdirSync(path.join(dataDir, "chroma"), { recursive: true });
    for (const name of [
      "kb.sqlite",
      "kb.sqlite-wal",
      "kb.sqlite-journal",
      "session-salt",
      "chroma/unclean-restarts",
      "unclean-restarts-checked",
    ])
      fs.writeFileSync(path.join(dataDir, name), "old\n");
    await expect(async () => restoreFiles(dir, m, dataDir, false)).rejects.toThrow(/is not empty/);
    await restoreFiles(dir, m, dataDir, true);
    // Chroma's folder goes, so the count of its restarts already checked must go with it.
    expect(fs.readdirSync(dataDir).sort()).toEqual(m.files.map((f) => f.name).sort());
  });
});
