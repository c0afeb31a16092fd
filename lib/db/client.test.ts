import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

describe("schema migrations", () => {
  it("moves a database of an older version forward and keeps its rows", async () => {
    // A database as the previous release left it (schema version 2), with a recall run in it.
    const { MIGRATIONS } = await import("./migrations");
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

    const { db } = await import("./client");
    const { listRuns } = await import("./eval-runs");
    expect(db().pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    const [run] = listRuns(1);
    expect(run).toMatchObject({ agent_id: 1, k: 3, embedding_model: "local-hash-glove-v2-1024", query_weighting: null });
  });
});

describe("schema version 4", () => {
  it("keeps every id, never reuses one, keeps cascades, and queues failed documents' vectors for clean-up", async () => {
    const { MIGRATIONS } = await import("./migrations");
    const { migrate } = await import("./migrate");
    const old = new Database(path.join(process.env.DATA_DIR!, "v3.sqlite"));
    old.pragma("foreign_keys = ON");
    for (const sql of MIGRATIONS.slice(0, 3)) old.exec(sql);
    old.pragma("user_version = 3");
    const t = new Date().toISOString();
    old.prepare("INSERT INTO agents (id, name, created_at, updated_at) VALUES (5, 'Kept', ?, ?)").run(t, t);
    const doc = old.prepare(
      `INSERT INTO documents (id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, status, text, embedding_model, created_at, updated_at)
       VALUES (?, 5, ?, 'txt', 'x', 1, 800, 100, ?, 't', 'm', ?, ?)`,
    );
    doc.run(7, "a.txt", "ready", t, t);
    doc.run(9, "b.txt", "failed", t, t);
    old.prepare("INSERT INTO pairs (agent_id, query, expected_filename, created_at, updated_at) VALUES (5, 'q', 'a.txt', ?, ?)").run(t, t);

    migrate(old);
    expect(old.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(old.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(old.prepare("SELECT id, status FROM documents ORDER BY id").all()).toEqual([
      { id: 7, status: "ready" },
      { id: 9, status: "failed" },
    ]);
    expect(old.prepare("SELECT agent_id, document_id FROM vector_cleanup").all()).toEqual([{ agent_id: 5, document_id: 9 }]);

    // The highest ids are deleted, and the next rows still get new ones.
    old.prepare("DELETE FROM documents WHERE id = 9").run();
    const next = old
      .prepare(
        `INSERT INTO documents (agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, status, text, embedding_model, created_at, updated_at)
       VALUES (5, 'c.txt', 'txt', 'y', 1, 800, 100, 'ready', 't', 'm', ?, ?)`,
      )
      .run(t, t);
    expect(Number(next.lastInsertRowid)).toBe(10);
    old.prepare("DELETE FROM agents WHERE id = 5").run();
    expect(old.prepare("SELECT COUNT(*) AS n FROM documents").get()).toEqual({ n: 0 }); // cascade still holds
    expect(old.prepare("SELECT COUNT(*) AS n FROM pairs").get()).toEqual({ n: 0 });
    const agent = old.prepare("INSERT INTO agents (name, created_at, updated_at) VALUES ('New', ?, ?)").run(t, t);
    expect(Number(agent.lastInsertRowid)).toBe(6);
    old.close();
  });
});

describe("schema version 6", () => {
  it("moves chunk text out of Chroma: every document's chunks are stored as the chunker made them", async () => {
    const { MIGRATIONS } = await import("./migrations");
    const { migrate } = await import("./migrate");
    const { chunkText } = await import("../core/chunking");
    const old = new Database(path.join(process.env.DATA_DIR!, "v5.sqlite"));
    for (const sql of MIGRATIONS.slice(0, 5)) old.exec(sql);
    old.pragma("user_version = 5");
    const t = new Date().toISOString();
    old.prepare("INSERT INTO agents (id, name, created_at, updated_at) VALUES (3, 'Five', ?, ?)").run(t, t);
    const text = "Refunds reach the card in five days. 🙂 Émojis and accents count as the chunker counts them. ".repeat(12);
    const doc = old.prepare(
      `INSERT INTO documents (id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count, status, text, embedding_model, created_at, updated_at)
       VALUES (?, 3, ?, 'txt', ?, 1, ?, ?, ?, 'ready', ?, 'm', ?, ?)`,
    );
    doc.run(4, "a.txt", "a", 300, 50, chunkText(text, 300, 50, "fixed").length, text, t, t);
    doc.run(6, "b.txt", "b", 800, 100, 1, "short", t, t);

    migrate(old);
    expect(old.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    const rows = (id: number) =>
      old.prepare("SELECT chunk_index AS 'index', start, end, text FROM chunks WHERE document_id = ? ORDER BY chunk_index").all(id);
    expect(rows(4)).toEqual(chunkText(text, 300, 50, "fixed"));
    // Documents indexed before there was a choice of strategy were fixed windows.
    expect(old.prepare("SELECT DISTINCT chunk_strategy FROM documents").all()).toEqual([{ chunk_strategy: "fixed" }]);
    expect(rows(6)).toEqual([{ index: 0, start: 0, end: 5, text: "short" }]);
    // Deleting a document takes its chunks with it.
    old.pragma("foreign_keys = ON");
    old.prepare("DELETE FROM documents WHERE id = 4").run();
    expect(rows(4)).toEqual([]);
    old.close();
  });
});

describe("the keyword index migrations", () => {
  it("index the chunks of ready documents already stored, one table per agent", async () => {
    const { MIGRATIONS } = await import("./migrations");
    const { migrate } = await import("./migrate");
    const at = MIGRATIONS.findIndex((sql) => sql.includes("chunks_fts"));
    const old = new Database(path.join(process.env.DATA_DIR!, `v${at}.sqlite`));
    for (const sql of MIGRATIONS.slice(0, at)) old.exec(sql);
    old.pragma(`user_version = ${at}`);
    const t = new Date().toISOString();
    old.prepare("INSERT INTO agents (id, name, created_at, updated_at) VALUES (7, 'Seven', ?, ?), (8, 'Eight', ?, ?)").run(t, t, t, t);
    const doc = old.prepare(
      `INSERT INTO documents (id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count, status, text, embedding_model, created_at, updated_at)
       VALUES (?, ?, ?, 'txt', ?, 1, 800, 100, 2, ?, 'x', 'm', ?, ?)`,
    );
    doc.run(21, 7, "a.txt", "a", "ready", t, t);
    doc.run(22, 7, "b.txt", "b", "failed", t, t);
    doc.run(23, 8, "c.txt", "c", "ready", t, t);
    old
      .prepare(
        `INSERT INTO chunks (document_id, chunk_index, start, end, text) VALUES
       (21, 0, 0, 16, 'Lamps and fuses.'), (21, 1, 17, 34, 'Kettles and lids.'), (22, 0, 0, 7, 'Kettles'), (23, 0, 0, 7, 'Kettles')`,
      )
      .run();
    migrate(old);
    const match = (agent: number, q: string) =>
      old.prepare(`SELECT rowid FROM chunks_fts_a${agent} WHERE chunks_fts_a${agent} MATCH ? ORDER BY rowid`).all(q);
    expect(match(7, '"kettle"')).toEqual([{ rowid: 21 * 1_000_000 + 1 }]); // the failed document's chunk is not indexed
    expect(match(8, '"kettle"')).toEqual([{ rowid: 23 * 1_000_000 }]);
    expect(
      old.prepare("SELECT name FROM sqlite_master WHERE name IN ('chunks_fts', 'chunks_fts_insert', 'chunks_fts_delete')").all(),
    ).toEqual([]);
    old.close();
  });
});

describe("the questions migration", () => {
  it("gives the agent's own searches and asks logged before it their question key, and pairs a source", async () => {
    const { MIGRATIONS } = await import("./migrations");
    const { migrate } = await import("./migrate");
    const at = MIGRATIONS.findIndex((sql) => sql.includes("CREATE TABLE question_groups"));
    const old = new Database(path.join(process.env.DATA_DIR!, `q${at}.sqlite`));
    for (const sql of MIGRATIONS.slice(0, at)) old.exec(sql);
    old.pragma(`user_version = ${at}`);
    const t = new Date().toISOString();
    old.prepare("INSERT INTO agents (id, name, created_at, updated_at) VALUES (7, 'Seven', ?, ?)").run(t, t);
    const call = old.prepare(
      "INSERT INTO tool_calls (id, agent_id, tool, input, ok, latency_ms, created_at, source) VALUES (?, 7, ?, ?, 1, 1, ?, ?)",
    );
    call.run(1, "document_search", JSON.stringify({ query: "Forgot my PASSWORD?", top_k: 3 }), t, "api");
    call.run(2, "ask", JSON.stringify({ question: "refund  to my card", top_k: 3 }), t, "api");
    call.run(3, "document_search", JSON.stringify({ query: "tried in the inspector", top_k: 3 }), t, "inspector");
    call.run(4, "document_search", JSON.stringify({ query: "?!", top_k: 3 }), t, "api");
    old.prepare("INSERT INTO pairs (agent_id, query, expected_filename, created_at, updated_at) VALUES (7, 'q', 'a.md', ?, ?)").run(t, t);
    migrate(old);
    expect(old.prepare("SELECT id, question_key FROM tool_calls ORDER BY id").all()).toEqual([
      { id: 1, question_key: "forgot my password" },
      { id: 2, question_key: "refund to my card" },
      { id: 3, question_key: null },
      { id: 4, question_key: null },
    ]);
    expect(old.prepare("SELECT source, status FROM pairs").all()).toEqual([{ source: "manual", status: "accepted" }]);
    expect(old.prepare("SELECT log_questions FROM agents").all()).toEqual([{ log_questions: 1 }]);
    old.close();
  });
});

describe("prepared statements", () => {
  it("are compiled once per SQL string and keep answering after the schema changes", async () => {
    const { reusePrepared } = await import("./client");
    const conn = reusePrepared(new Database(":memory:"));
    conn.exec("CREATE TABLE t (a INTEGER)");
    const insert = conn.prepare("INSERT INTO t (a) VALUES (?)");
    expect(conn.prepare("INSERT INTO t (a) VALUES (?)")).toBe(insert);
    insert.run(1);
    conn.prepare("INSERT INTO t (a) VALUES (?)").run(2);
    const count = conn.prepare("SELECT COUNT(*) AS n FROM t");
    expect(count.get()).toEqual({ n: 2 });
    conn.exec("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'");
    expect(conn.prepare("SELECT COUNT(*) AS n FROM t")).toBe(count);
    expect(conn.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 2 });
    expect(conn.prepare("SELECT a, b FROM t ORDER BY a").all()).toEqual([
      { a: 1, b: "x" },
      { a: 2, b: "x" },
    ]);
    conn.close();
  });

  it("keep a bounded number, the least recently used dropped first", async () => {
    const { reusePrepared } = await import("./client");
    const conn = reusePrepared(new Database(":memory:"));
    const first = conn.prepare("SELECT 0");
    for (let i = 1; i < 300; i++) {
      conn.prepare(`SELECT ${i}`);
      if (i % 50 === 0) conn.prepare("SELECT 0"); // used now and then: kept
    }
    expect(conn.prepare("SELECT 0")).toBe(first);
    const early = conn.prepare("SELECT 1");
    expect(early.get()).toEqual({ "1": 1 }); // dropped long ago: compiled again, and still works
    conn.close();
  });
});

describe("the duplicate check on upload", () => {
  it("looks the document up by its (agent, sha256) index, not by reading the agent's ready documents", async () => {
    const { db } = await import("./client");
    const { READY_BY_SHA } = await import("./documents");
    const plan = db().prepare(`EXPLAIN QUERY PLAN ${READY_BY_SHA}`).all(1, "0".repeat(64)) as { detail: string }[];
    expect(plan.map((p) => p.detail).join("; ")).toMatch(/USING INDEX documents_sha \(agent_id=\? AND sha256=\?\)/);
  });
});

describe("schema version 30", () => {
  it("makes coverage rows from the calls logged before it: each result of the agent's own calls, at its rank", async () => {
    const { MIGRATIONS } = await import("./migrations");
    const { migrate } = await import("./migrate");
    const old = new Database(path.join(process.env.DATA_DIR!, "v29.sqlite"));
    old.pragma("foreign_keys = ON");
    for (const sql of MIGRATIONS.slice(0, 29)) old.exec(sql);
    old.pragma("user_version = 29");
    const t = "2026-12-01T10:00:00.000Z";
    old.prepare("INSERT INTO agents (id, name, created_at, updated_at) VALUES (2, 'Logged', ?, ?)").run(t, t);
    const trace = (files: string[]) =>
      JSON.stringify({ results: files.map((f, i) => ({ document_id: 10 + i, chunk_index: i, filename: f, score: 0.1 * i })) });
    const log = old.prepare(
      `INSERT INTO tool_calls (id, agent_id, tool, input, ok, latency_ms, result_count, created_at, source, retrieval)
       VALUES (?, 2, 'document_search', '{}', 1, 1, ?, ?, ?, ?)`,
    );
    log.run(1, 3, t, "api", trace(["a.md", "b.md", "a.md"]));
    log.run(2, 1, t, "inspector", trace(["a.md"]));
    log.run(3, 0, t, "api", null);

    migrate(old);
    expect(old.prepare("SELECT call_id, document_id, chunk_index, filename, rank, created_at FROM retrievals ORDER BY rank").all()).toEqual(
      [
        { call_id: 1, document_id: 10, chunk_index: 0, filename: "a.md", rank: 1, created_at: t },
        { call_id: 1, document_id: 11, chunk_index: 1, filename: "b.md", rank: 2, created_at: t },
        { call_id: 1, document_id: 12, chunk_index: 2, filename: "a.md", rank: 3, created_at: t },
      ],
    );
    // Per document name, once per call, at the best rank of its chunks.
    expect(old.prepare("SELECT call_id, filename, rank FROM retrieved_documents ORDER BY filename").all()).toEqual([
      { call_id: 1, filename: "a.md", rank: 1 },
      { call_id: 1, filename: "b.md", rank: 2 },
    ]);
    // A call logged afterwards gets its rows as it is written; pruning a call takes them along.
    log.run(4, 1, t, "api", trace(["c.md"]));
    expect(old.prepare("SELECT filename FROM retrievals WHERE call_id = 4").all()).toEqual([{ filename: "c.md" }]);
    expect(old.prepare("SELECT filename, rank FROM retrieved_documents WHERE call_id = 4").all()).toEqual([{ filename: "c.md", rank: 1 }]);
    old.prepare("DELETE FROM tool_calls WHERE id = 1").run();
    expect(old.prepare("SELECT COUNT(*) AS n FROM retrievals WHERE call_id = 1").get()).toEqual({ n: 0 });
    expect(old.prepare("SELECT COUNT(*) AS n FROM retrieved_documents WHERE call_id = 1").get()).toEqual({ n: 0 });
    old.close();
  });
});
