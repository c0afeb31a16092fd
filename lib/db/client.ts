import "server-only";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env.mjs";
import { processState } from "../core/process-state";
import { chunkText } from "../core/chunking";
import { rebuildKeywordIndexes } from "./keyword-index";
import { logTightening, tightenDataDir } from "./data-dir";
import { questionKey, questionText } from "../core/normalize";

// Each entry moves the schema one version forward; never edit a shipped one.
export const MIGRATIONS = [
  `CREATE TABLE agents (
     id INTEGER PRIMARY KEY,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     tools TEXT NOT NULL DEFAULT '["document_search"]',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE TABLE documents (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     type TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     chunk_size INTEGER NOT NULL,
     chunk_overlap INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL DEFAULT 0,
     status TEXT NOT NULL CHECK (status IN ('indexing', 'ready', 'failed')),
     error TEXT,
     text TEXT NOT NULL,
     embedding_model TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX documents_agent ON documents(agent_id, filename);
   CREATE INDEX documents_sha ON documents(agent_id, sha256);
   CREATE TABLE tool_calls (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     tool TEXT NOT NULL,
     input TEXT NOT NULL,
     ok INTEGER NOT NULL,
     error TEXT,
     latency_ms REAL NOT NULL,
     result_count INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL
   );
   CREATE INDEX tool_calls_agent ON tool_calls(agent_id, created_at);`,
  // Labeled pairs name the expected document by filename, so they survive a re-upload.
  `CREATE TABLE pairs (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     query TEXT NOT NULL,
     expected_filename TEXT NOT NULL,
     note TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     UNIQUE (agent_id, query, expected_filename)
   );
   CREATE TABLE eval_runs (
     id INTEGER PRIMARY KEY,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     k INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     error TEXT,
     done_pairs INTEGER NOT NULL DEFAULT 0,
     n_pairs INTEGER NOT NULL,
     embedding_model TEXT NOT NULL,
     document_count INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL,
     chunk_settings TEXT NOT NULL,
     recall_at_k TEXT,
     mrr REAL,
     created_at TEXT NOT NULL,
     finished_at TEXT
   );
   CREATE INDEX eval_runs_agent ON eval_runs(agent_id, id);
   CREATE TABLE eval_results (
     run_id INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
     pair_id INTEGER,
     query TEXT NOT NULL,
     expected TEXT NOT NULL,
     document_id INTEGER,
     rank INTEGER,
     best_distance REAL,
     missing INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (run_id, query, expected)
   );`,
  // How the run's queries were weighted (Embedder.queryWeighting); NULL: not weighted.
  `ALTER TABLE eval_runs ADD COLUMN query_weighting TEXT;`,
  // Ids are never reused (AUTOINCREMENT), so a vector left behind by a deleted agent or
  // document can never be taken for a new one's. Tables are rebuilt the way SQLite documents it.
  `CREATE TABLE agents_v4 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     tools TEXT NOT NULL DEFAULT '["document_search"]',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   INSERT INTO agents_v4 (id, name, tools, created_at, updated_at) SELECT id, name, tools, created_at, updated_at FROM agents;
   DROP TABLE agents;
   ALTER TABLE agents_v4 RENAME TO agents;
   CREATE TABLE documents_v4 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     filename TEXT NOT NULL,
     type TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     chunk_size INTEGER NOT NULL,
     chunk_overlap INTEGER NOT NULL,
     chunk_count INTEGER NOT NULL DEFAULT 0,
     status TEXT NOT NULL CHECK (status IN ('indexing', 'ready', 'failed')),
     error TEXT,
     text TEXT NOT NULL,
     embedding_model TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   INSERT INTO documents_v4 SELECT id, agent_id, filename, type, sha256, bytes, chunk_size, chunk_overlap, chunk_count,
     status, error, text, embedding_model, created_at, updated_at FROM documents;
   DROP TABLE documents;
   ALTER TABLE documents_v4 RENAME TO documents;
   CREATE INDEX documents_agent ON documents(agent_id, filename);
   CREATE INDEX documents_sha ON documents(agent_id, sha256);
   CREATE INDEX documents_status ON documents(status);
   INSERT INTO sqlite_sequence (name, seq)
     SELECT 'agents', COALESCE(MAX(id), 0) FROM agents WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'agents');
   INSERT INTO sqlite_sequence (name, seq)
     SELECT 'documents', COALESCE(MAX(id), 0) FROM documents WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'documents');
   -- Vectors that must go: a failed or interrupted ingest's, a deleted document's or agent's
   -- (document_id NULL: all of the agent's). Retried with backoff until Chroma confirms.
   CREATE TABLE vector_cleanup (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL,
     document_id INTEGER,
     vectors INTEGER NOT NULL DEFAULT 0,
     reason TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     next_attempt_at TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX vector_cleanup_agent ON vector_cleanup(agent_id, document_id);
   -- Failed documents of earlier versions may still hold vectors whose removal was never retried.
   INSERT INTO vector_cleanup (agent_id, document_id, vectors, reason, next_attempt_at, created_at)
     SELECT agent_id, id, 0, 'failed before the upgrade', updated_at, updated_at FROM documents WHERE status = 'failed';
   -- Bearer tokens for automation; only a hash of each token is kept.
   CREATE TABLE api_tokens (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('viewer', 'editor')),
     token_hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     last_used_at TEXT,
     revoked_at TEXT
   );`,
  // Who searched: the agent through the API, or a person in the inspector (not the agent's call).
  `ALTER TABLE tool_calls ADD COLUMN source TEXT NOT NULL DEFAULT 'api';`,
  // Chunk text lives here, not in Chroma: Chroma holds vectors and the agent/document ids a
  // query filters on; a search reads the text of its few hits by primary key. Filled from the
  // documents' text by BACKFILLS[6].
  `CREATE TABLE chunks (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     chunk_index INTEGER NOT NULL,
     start INTEGER NOT NULL,
     end INTEGER NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (document_id, chunk_index)
   ) WITHOUT ROWID;
   -- What every search asks about an agent (its ready chunks, models, indexing ones) from the index alone.
   CREATE INDEX documents_agent_status ON documents(agent_id, status, embedding_model, chunk_count);
   -- Query-weighting counts per agent, kept across restarts (lib/retrieval/corpus-stats.ts).
   CREATE TABLE corpus_stats (
     agent_id INTEGER PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     chunks INTEGER NOT NULL,
     docs TEXT NOT NULL,
     counts BLOB NOT NULL,
     updated_at TEXT NOT NULL
   );`,
  // A removal whose vectors may still be on their way to Chroma (a write that timed out, a server
  // that stopped mid-write) is checked again after it succeeded: removed_at is when it last did.
  `ALTER TABLE vector_cleanup ADD COLUMN late_writes INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE vector_cleanup ADD COLUMN removed_at TEXT;`,
  // How a document was chunked (lib/core/chunking.ts); documents indexed before there was a choice are fixed windows.
  `ALTER TABLE documents ADD COLUMN chunk_strategy TEXT NOT NULL DEFAULT 'fixed';`,
  // Chunk-settings sweeps (lib/evaluation/sweep.ts): rows and apply progress as JSON, rewritten as they move.
  `CREATE TABLE sweeps (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     k INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     error TEXT,
     n_pairs INTEGER NOT NULL,
     n_documents INTEGER NOT NULL,
     progress_done INTEGER NOT NULL DEFAULT 0,
     progress_total INTEGER NOT NULL,
     rows TEXT NOT NULL,
     apply TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX sweeps_agent ON sweeps(agent_id, id);`,
  // The no-match cut (lib/retrieval/cut.ts) with the model whose distances it was set in; what a
  // run used, and per pair the distance of the query's closest chunk (to calibrate a cut from).
  `ALTER TABLE agents ADD COLUMN max_distance REAL;
   ALTER TABLE agents ADD COLUMN max_distance_model TEXT;
   ALTER TABLE eval_runs ADD COLUMN max_distance REAL;
   ALTER TABLE eval_results ADD COLUMN top_distance REAL;
   ALTER TABLE eval_results ADD COLUMN beyond_cut INTEGER NOT NULL DEFAULT 0;`,
  // A pair with no expected document (pairs.expected_filename ''): a question that should get no answer.
  `ALTER TABLE eval_results ADD COLUMN answerable INTEGER NOT NULL DEFAULT 1;`,
  // What an ask ended in ("answered", "refused: no_match", ...), so refusals can be listed.
  `ALTER TABLE tool_calls ADD COLUMN outcome TEXT;
   CREATE INDEX tool_calls_outcome ON tool_calls(agent_id, tool, outcome);`,
  // The keyword side of retrieval (lib/retrieval/keyword.ts): every chunk in an FTS5 index, kept
  // in step with the chunks table by triggers, so ingest, re-index and delete stay all or
  // nothing. Contentless (the text is in chunks already); the rowid is
  // document_id * 1,000,000 + chunk_index, and the agent is an indexed token a query must match.
  `CREATE VIRTUAL TABLE chunks_fts USING fts5(agent, text, content='', contentless_delete=1, tokenize='porter unicode61');
   CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
     INSERT INTO chunks_fts (rowid, agent, text)
       VALUES (new.document_id * 1000000 + new.chunk_index, 'a' || (SELECT agent_id FROM documents WHERE id = new.document_id), new.text);
   END;
   CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
     DELETE FROM chunks_fts WHERE rowid = old.document_id * 1000000 + old.chunk_index;
   END;
   INSERT INTO chunks_fts (rowid, agent, text)
     SELECT c.document_id * 1000000 + c.chunk_index, 'a' || d.agent_id, c.text FROM chunks c JOIN documents d ON d.id = c.document_id;
   ALTER TABLE agents ADD COLUMN retrieval_mode TEXT NOT NULL DEFAULT 'vector';`,
  // The mode a run ranked in, so runs of the three modes can be compared.
  `ALTER TABLE eval_runs ADD COLUMN retrieval_mode TEXT NOT NULL DEFAULT 'vector';`,
  // The keyword index becomes one table per agent, written by the ingest transactions
  // (lib/db/keyword-index.ts): bm25 then counts a word's rarity over the agent's own chunks.
  `DROP TRIGGER chunks_fts_insert;
   DROP TRIGGER chunks_fts_delete;
   DROP TABLE chunks_fts;`,
  // Chunks Chroma stores but its index cannot return (lib/db/unreachable.ts): searches rank them
  // by their exact distance. They go with their document.
  `CREATE TABLE unreachable_chunks (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     chunk_index INTEGER NOT NULL,
     agent_id INTEGER NOT NULL,
     found_at TEXT NOT NULL,
     PRIMARY KEY (document_id, chunk_index)
   );
   CREATE INDEX unreachable_chunks_agent ON unreachable_chunks(agent_id);`,
  // Signed-out sessions (by the cookie's jti) stay refused until their cookie would have
  // expired; API tokens may expire.
  `CREATE TABLE revoked_sessions (
     id TEXT PRIMARY KEY,
     expires_at TEXT NOT NULL
   );
   ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;`,
  // The exact ranking's copy of every chunk vector (lib/db/chunk-vectors.ts), a run of up to 64
  // chunks per row, written as ingest writes Chroma and gone with the document's row: a search
  // ranks exactly what its transaction made ready. Documents indexed before it are copied from
  // Chroma after start-up (lib/index-upkeep/exact-copies.ts).
  `CREATE TABLE chunk_vectors (
     document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     first_chunk INTEGER NOT NULL,
     count INTEGER NOT NULL,
     dimension INTEGER NOT NULL,
     vectors BLOB NOT NULL,
     PRIMARY KEY (document_id, model, first_chunk)
   );`,
  // The index-recall monitor's measurements (lib/db/index-recall.ts): the served ranking and
  // Chroma's index alone against the exact one, the newest few per agent.
  `CREATE TABLE index_recall (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     k INTEGER NOT NULL,
     queries INTEGER NOT NULL,
     served_recall REAL,
     index_recall REAL,
     served_exactly INTEGER,
     nearest_missed INTEGER,
     index_nearest_missed INTEGER,
     ready_signature TEXT NOT NULL,
     reason TEXT,
     measured_at TEXT NOT NULL
   );
   CREATE INDEX index_recall_agent ON index_recall(agent_id, id);`,
  // The agent's own questions (lib/questions/): each logged search or ask of the agent keeps its
  // normalised text (the key that groups the same question asked again) and what it returned;
  // keys are grouped into questions by embedding similarity, and a group carries its triage.
  // Pairs say where they came from and whether they count in runs (generated ones are proposed
  // until accepted). An agent can keep its questions out of the log.
  `ALTER TABLE tool_calls ADD COLUMN question_key TEXT;
   ALTER TABLE tool_calls ADD COLUMN retrieval TEXT;
   ALTER TABLE tool_calls ADD COLUMN refused INTEGER;
   CREATE INDEX tool_calls_question ON tool_calls(agent_id, question_key) WHERE question_key IS NOT NULL;
   CREATE TABLE question_groups (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     -- The first key of the group: its text and vector stand for the group.
     key TEXT NOT NULL,
     status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'labeled', 'unanswerable', 'gap', 'ignored')),
     expected_filename TEXT,
     pair_id INTEGER REFERENCES pairs(id) ON DELETE SET NULL,
     created_at TEXT NOT NULL,
     triaged_at TEXT
   );
   CREATE INDEX question_groups_agent ON question_groups(agent_id, status);
   CREATE TABLE question_keys (
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     group_id INTEGER NOT NULL REFERENCES question_groups(id) ON DELETE CASCADE,
     text TEXT NOT NULL,
     -- The representative's vector (unit length, float32) in this model; null for the other keys.
     model TEXT,
     vector BLOB,
     PRIMARY KEY (agent_id, key)
   ) WITHOUT ROWID;
   CREATE INDEX question_keys_group ON question_keys(group_id);
   ALTER TABLE agents ADD COLUMN log_questions INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE pairs ADD COLUMN source TEXT NOT NULL DEFAULT 'manual';
   ALTER TABLE pairs ADD COLUMN status TEXT NOT NULL DEFAULT 'accepted';
   ALTER TABLE eval_runs ADD COLUMN pair_source TEXT;`,
  // Generated questions a person rejected, or reworded before accepting (lib/evaluation/generate/):
  // the next generation does not propose them again.
  `CREATE TABLE dismissed_questions (
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     expected_filename TEXT NOT NULL,
     dismissed_at TEXT NOT NULL,
     PRIMARY KEY (agent_id, key, expected_filename)
   ) WITHOUT ROWID;`,
  // Sources (lib/sources/): a sitemap or a list of page URLs an agent's documents are synced from.
  `CREATE TABLE sources (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
     kind TEXT NOT NULL CHECK (kind IN ('sitemap', 'urls')),
     -- The sitemap's URL, or the page URLs as a JSON array.
     location TEXT NOT NULL,
     on_removed TEXT NOT NULL DEFAULT 'propose' CHECK (on_removed IN ('propose', 'remove')),
     interval_minutes INTEGER,
     created_at TEXT NOT NULL
   );
   CREATE INDEX sources_agent ON sources(agent_id);
   -- A page of a source as last seen: what validates a conditional fetch, and the document it made.
   CREATE TABLE source_pages (
     source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     filename TEXT NOT NULL,
     sha256 TEXT,
     etag TEXT,
     last_modified TEXT,
     fetched_at TEXT,
     state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removal_proposed')),
     -- Why its last fetch failed; null when it succeeded.
     error TEXT,
     PRIMARY KEY (source_id, url)
   ) WITHOUT ROWID;
   CREATE TABLE source_syncs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
     trigger TEXT NOT NULL CHECK (trigger IN ('manual', 'schedule')),
     status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
     started_at TEXT NOT NULL,
     finished_at TEXT,
     seen INTEGER NOT NULL DEFAULT 0,
     added INTEGER NOT NULL DEFAULT 0,
     changed INTEGER NOT NULL DEFAULT 0,
     removed INTEGER NOT NULL DEFAULT 0,
     proposed INTEGER NOT NULL DEFAULT 0,
     unchanged INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     -- [{url, reason}] of the pages that failed; error is why the whole sync failed.
     failures TEXT NOT NULL DEFAULT '[]',
     error TEXT
   );
   CREATE INDEX source_syncs_source ON source_syncs(source_id, id);
   ALTER TABLE documents ADD COLUMN source_url TEXT;
   ALTER TABLE documents ADD COLUMN fetched_at TEXT;`,
  // The index check after a Chroma crash (lib/db/index-check.ts): the newest writes of chunk
  // vectors, the documents suspected of being damaged (searches rank their chunks exactly until
  // they are checked), and the state of the check that outlives the process.
  `CREATE TABLE vector_writes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     collection TEXT NOT NULL,
     agent_id INTEGER NOT NULL,
     document_id INTEGER NOT NULL,
     chunks INTEGER NOT NULL
   );
   CREATE TABLE suspect_documents (
     document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
     agent_id INTEGER NOT NULL,
     model TEXT NOT NULL,
     since TEXT NOT NULL
   );
   CREATE INDEX suspect_documents_agent ON suspect_documents(agent_id, model);
   CREATE TABLE index_check (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     suspect_writes_until TEXT,
     followed_collection TEXT,
     full_model TEXT,
     full_below INTEGER,
     full_checked INTEGER NOT NULL DEFAULT 0,
     full_total INTEGER NOT NULL DEFAULT 0,
     full_started_at TEXT,
     full_finished_at TEXT
   );
   INSERT INTO index_check (id) VALUES (1);`,
  // Sources: whether sitemap entries on other (public) hosts are fetched, and why a sync read less than its whole source.
  `ALTER TABLE sources ADD COLUMN cross_host INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE source_syncs ADD COLUMN note TEXT;`,
];

/**
 * Data moves a migration needs beyond SQL, run in the same transaction right after the SQL of
 * the version it is keyed by (1-based, as user_version counts).
 */
export const BACKFILLS: Record<number, (db: Database.Database) => void> = {
  [MIGRATIONS.findIndex((sql) => sql.includes("DROP TABLE chunks_fts")) + 1]: rebuildKeywordIndexes,
  [MIGRATIONS.findIndex((sql) => sql.includes("CREATE TABLE question_groups")) + 1]: (d) => {
    // The agent's questions logged before keys existed join the Questions tab.
    const set = d.prepare("UPDATE tool_calls SET question_key = ? WHERE id = ?");
    const rows = d.prepare("SELECT id, input FROM tool_calls WHERE source = 'api' AND tool IN ('document_search', 'ask')").all() as { id: number; input: string }[];
    for (const r of rows) {
      const text = questionText(JSON.parse(r.input));
      if (text) set.run(questionKey(text), r.id);
    }
  },
  6: (d) => {
    const insert = d.prepare("INSERT INTO chunks (document_id, chunk_index, start, end, text) VALUES (?, ?, ?, ?, ?)");
    const read = d.prepare("SELECT text, chunk_size, chunk_overlap FROM documents WHERE id = ?");
    // One document in memory at a time (a connection cannot write while it iterates).
    for (const { id } of d.prepare("SELECT id FROM documents").all() as { id: number }[]) {
      const doc = read.get(id) as { text: string; chunk_size: number; chunk_overlap: number };
      for (const c of chunkText(doc.text, doc.chunk_size, doc.chunk_overlap, "fixed")) insert.run(id, c.index, c.start, c.end, c.text);
    }
  },
};

function open(): Database.Database {
  const dir = env().DATA_DIR;
  // The database holds every article, question and token hash: only this user may read it.
  // SQLite gives its -wal and -shm files the database file's permissions.
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An install made before the app did so has its modes tightened, before SQLite opens a journal.
  logTightening(dir, tightenDataDir(dir));
  const file = path.join(dir, "kb.sqlite");
  fs.closeSync(fs.openSync(file, "a", 0o600));
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  // With WAL, NORMAL syncs at checkpoints instead of every commit: a crash of the app loses
  // nothing, a power cut can lose the last commits but never corrupts the file.
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);
  return reusePrepared(db);
}

/** The most statements kept compiled; the app's SQL is a few dozen fixed strings. */
const PREPARED_KEPT = 256;

/**
 * better-sqlite3 compiles a statement on every prepare(), and the app calls prepare() at each
 * use: about ten compilations per search. This connection compiles each SQL string once and
 * hands out the same statement after that, the least recently used dropped past PREPARED_KEPT.
 * Safe as the app uses statements: run/get/all only, never iterate() (a statement busy
 * iterating cannot run again) and never pluck/raw/expand/bind (those change the statement).
 */
export function reusePrepared(conn: Database.Database): Database.Database {
  const compile = conn.prepare.bind(conn);
  const kept = new Map<string, Database.Statement>();
  conn.prepare = ((sql: string) => {
    let stmt = kept.get(sql);
    if (stmt) {
      kept.delete(sql); // re-inserted below: the map's order is the order of last use
    } else {
      stmt = compile(sql);
      if (kept.size >= PREPARED_KEPT) kept.delete(kept.keys().next().value!);
    }
    kept.set(sql, stmt);
    return stmt;
  }) as Database.Database["prepare"];
  return conn;
}

/** Moves a database forward to the latest schema, one version per transaction. */
export function migrate(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version < MIGRATIONS.length) {
    // Rebuilding a table that others reference needs foreign keys off while it runs.
    db.pragma("foreign_keys = OFF");
    try {
      for (let v = version; v < MIGRATIONS.length; v++) {
        db.transaction(() => {
          db.exec(MIGRATIONS[v]);
          BACKFILLS[v + 1]?.(db);
          const broken = db.pragma("foreign_key_check") as unknown[];
          if (broken.length > 0) throw new Error(`schema migration ${v + 1} left ${broken.length} broken references`);
          db.pragma(`user_version = ${v + 1}`);
        })();
      }
    } finally {
      db.pragma("foreign_keys = ON");
    }
  }
}

// One connection per process: every module instance (and dev-mode reload) shares it.
export function db(): Database.Database {
  return processState("db", open);
}

export function now(): string {
  return new Date().toISOString();
}

interface Grouped {
  work: () => unknown;
  last?: (value: unknown) => void;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}
const groupedWrites = () => processState<Grouped[]>("groupedWrites", () => []);

/**
 * Runs `work` in a transaction shared with the other writes asked for in the same turn of the
 * event loop (group commit): the documents of an upload are inserted, and those whose vectors
 * one Chroma add carried are made ready, together. A commit costs about as much as the rows of
 * a small document. Each piece of work still commits all or nothing, in a savepoint of its
 * own: one that throws is rolled back and rejects alone.
 *
 * `last` runs after every piece of work of the group, outside the savepoints but in the same
 * transaction, with its work's result: keyword-index (FTS5) writes go there, because FTS5
 * writes out its pending rows as a new segment at every savepoint, and a segment per document
 * is what made commits expensive. If a `last` throws, the whole group is rolled back and every
 * piece rejects.
 */
export function groupedWrite<T>(work: () => T, last?: (value: T) => void): Promise<T> {
  const pending = groupedWrites();
  return new Promise<T>((resolve, reject) => {
    pending.push({ work, last: last as ((value: unknown) => void) | undefined, resolve: resolve as (value: unknown) => void, reject });
    if (pending.length === 1) setImmediate(flushGroupedWrites);
  });
}

function flushGroupedWrites(): void {
  const batch = groupedWrites().splice(0);
  const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
  try {
    db().transaction(() => {
      for (const g of batch) {
        try {
          outcomes.push({ ok: true, value: db().transaction(g.work)() });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
      batch.forEach((g, i) => {
        const o = outcomes[i];
        if (o.ok && g.last) g.last(o.value);
      });
    })();
  } catch (err) {
    // The group was rolled back: none of it was written.
    for (const g of batch) g.reject(err);
    return;
  }
  batch.forEach((g, i) => {
    const o = outcomes[i];
    if (o.ok) g.resolve(o.value);
    else g.reject(o.err);
  });
}
