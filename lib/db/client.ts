import "server-only";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { env } from "../env.mjs";
import { logTightening, tightenDataDir } from "./data-dir";
import { migrate } from "./migrate";
import { dbState, type GroupedWrite } from "./state";

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

// One connection per process: every module instance (and dev-mode reload) shares it.
export function db(): Database.Database {
  const state = dbState();
  return (state.connection ??= open());
}

export function now(): string {
  return new Date().toISOString();
}

const groupedWrites = (): GroupedWrite[] => dbState().groupedWrites;

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
