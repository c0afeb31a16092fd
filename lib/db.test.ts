import Database from "better-sqlite3";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("schema migrations", () => {
  it("moves a database of an older version forward and keeps its rows", async () => {
    // A database as the previous release left it (schema version 2), with a recall run in it.
    const { MIGRATIONS } = await import("./db");
    const file = path.join(process.env.DATA_DIR!, "kb.sqlite");
    const old = new Database(file);
    for (const sql of MIGRATIONS.slice(0, 2)) old.exec(sql);
    old.pragma("user_version = 2");
    const t = new Date().toISOString();
    old.prepare("INSERT INTO agents (id, name, created_at, updated_at) VALUES (1, 'Old', ?, ?)").run(t, t);
    old
      .prepare(
        `INSERT INTO eval_runs (agent_id, k, status, n_pairs, embedding_model, document_count, chunk_count, chunk_settings, created_at)
         VALUES (1, 3, 'done', 0, 'local-hash-glove-v2-1024', 0, 0, '[]', ?)`,
      )
      .run(t);
    old.close();

    const { db } = await import("./db");
    const { listRuns } = await import("./evaluation/runs");
    expect(db().pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    const [run] = listRuns(1);
    expect(run).toMatchObject({ agent_id: 1, k: 3, embedding_model: "local-hash-glove-v2-1024", query_weighting: null });
  });
});
