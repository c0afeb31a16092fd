import "server-only";
import type Database from "better-sqlite3";
import { db } from "./client";

const METHODS = ["run", "get", "all", "iterate"] as const;

/** Statement executions while counting: all of them, and per SQL text. */
export interface StatementCount {
  total: number;
  bySql: Map<string, number>;
}

/**
 * Counts every statement the app's connection executes (run, get, all, iterate) until `stop` is
 * called: what a request costs in SQLite calls (`npm run bench:sqlite-calls`). The statement
 * class is patched only while counting, so the app pays nothing for it otherwise.
 */
export function countStatements(): { count: () => StatementCount; stop: () => StatementCount } {
  const proto = Object.getPrototypeOf(db().prepare("SELECT 1")) as Record<(typeof METHODS)[number], (...args: unknown[]) => unknown>;
  const originals = METHODS.map((m) => proto[m]);
  const counted: StatementCount = { total: 0, bySql: new Map() };
  METHODS.forEach((m, i) => {
    const original = originals[i];
    proto[m] = function (this: Database.Statement, ...args: unknown[]) {
      counted.total++;
      counted.bySql.set(this.source, (counted.bySql.get(this.source) ?? 0) + 1);
      return original.apply(this, args);
    };
  });
  const snapshot = () => ({ total: counted.total, bySql: new Map(counted.bySql) });
  return {
    count: snapshot,
    stop: () => {
      METHODS.forEach((m, i) => (proto[m] = originals[i]));
      return snapshot();
    },
  };
}
