// The SQLite side of backups (lib/backup/): a consistent copy of a live database through
// SQLite's online backup API, and what a copy holds. Plain file paths, no app connection: the
// backup command runs beside the app, and restore reads a copy before the app opens it.
import fs from "node:fs";
import Database from "better-sqlite3";

export interface DatabaseSummary {
  schema_version: number;
  agents: number;
  documents: number;
  chunks: number;
  vectors: number;
  pairs: number;
  runs: number;
  /** Ready documents whose vectors have no full copy in the file: restore embeds them again. */
  missing_vector_copies: number;
  models: { model: string; dimension: number | null; documents: number }[];
}

/**
 * Copies the database at `from` to `to` while other connections (the app) go on writing. After
 * a first step the rest is copied in one step, inside one read transaction: writes by another
 * process meanwhile cannot restart it, and the copy is the database as of that moment.
 */
export async function backupDatabase(from: string, to: string): Promise<void> {
  // Made here, 0600 and new, so SQLite writes into it rather than creating it with the umask.
  fs.closeSync(fs.openSync(to, "wx", 0o600));
  const src = new Database(from, { fileMustExist: true });
  try {
    src.pragma("busy_timeout = 5000");
    await src.backup(to, { progress: () => 2 ** 30 });
  } finally {
    src.close();
  }
  // The copy inherits the live database's WAL mode; in rollback mode it is one file, and
  // opening it later (to summarise or restore it) leaves no -wal or -shm beside it.
  const copy = new Database(to, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
}

const count = (db: Database.Database, sql: string) => (db.prepare(sql).get() as { n: number }).n;

/** What a database file holds, for the manifest; also checks that SQLite finds it intact. */
export function summarizeDatabase(file: string): DatabaseSummary {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new Error(`${file} fails SQLite's integrity check: ${String(check)}`);
    const ready = "FROM documents WHERE status = 'ready'";
    return {
      schema_version: db.pragma("user_version", { simple: true }) as number,
      agents: count(db, "SELECT COUNT(*) AS n FROM agents"),
      documents: count(db, `SELECT COUNT(*) AS n ${ready}`),
      chunks: count(db, `SELECT COALESCE(SUM(chunk_count), 0) AS n ${ready}`),
      vectors: count(
        db,
        "SELECT COALESCE(SUM(v.count), 0) AS n FROM chunk_vectors v JOIN documents d ON d.id = v.document_id AND d.status = 'ready' AND v.model = d.embedding_model",
      ),
      pairs: count(db, "SELECT COUNT(*) AS n FROM pairs"),
      runs: count(db, "SELECT COUNT(*) AS n FROM eval_runs WHERE status = 'done'"),
      missing_vector_copies: count(
        db,
        `SELECT COUNT(*) AS n FROM documents d WHERE d.status = 'ready' AND d.chunk_count !=
           (SELECT COALESCE(SUM(v.count), 0) FROM chunk_vectors v WHERE v.document_id = d.id AND v.model = d.embedding_model)`,
      ),
      models: db
        .prepare(
          `SELECT d.embedding_model AS model, COUNT(*) AS documents,
             (SELECT MAX(v.dimension) FROM chunk_vectors v WHERE v.model = d.embedding_model) AS dimension
           FROM documents d WHERE d.status = 'ready' GROUP BY d.embedding_model ORDER BY d.embedding_model`,
        )
        .all() as DatabaseSummary["models"],
    };
  } finally {
    db.close();
  }
}

/** Ready documents of the open app database, a page at a time by id, for restoring their vectors. */
export function readyDocumentsAfter(db: Database.Database, afterId: number, limit: number) {
  return db
    .prepare("SELECT id, agent_id, chunk_count, embedding_model FROM documents WHERE status = 'ready' AND id > ? ORDER BY id LIMIT ?")
    .all(afterId, limit) as { id: number; agent_id: number; chunk_count: number; embedding_model: string }[];
}
