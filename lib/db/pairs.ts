import "server-only";
import { conflict, notFound } from "../core/errors";
import type { PairSource, PairStatus } from "../validations/pair";
import { questionKey } from "../core/normalize";
import { db, now } from "./client";

export interface Pair {
  id: number;
  agent_id: number;
  query: string;
  expected_filename: string;
  note: string | null;
  /** Where it came from: typed in, imported, labeled from the agent's questions, or generated. */
  source: PairSource;
  /** Only accepted pairs count in runs; generated ones are proposed until a person accepts them. */
  status: PairStatus;
  created_at: string;
  updated_at: string;
  /** The metadata filter its question is asked with (lib/core/filter.ts), as the agent's call had it; null: none. */
  filter: Record<string, unknown> | null;
}

type StoredPair = Omit<Pair, "filter"> & { filter: string | null };
const parsed = (row: StoredPair): Pair => ({ ...row, filter: row.filter ? (JSON.parse(row.filter) as Record<string, unknown>) : null });
const stored = (filter: Record<string, unknown> | null | undefined) => (filter ? JSON.stringify(filter) : null);

/** The agent's pairs, all of them or those of one status and source. */
export function listPairs(agentId: number, filter: { status?: PairStatus; source?: PairSource | null } = {}): Pair[] {
  return (
    db()
      .prepare("SELECT * FROM pairs WHERE agent_id = ? AND (? IS NULL OR status = ?) AND (? IS NULL OR source = ?) ORDER BY id")
      .all(agentId, filter.status ?? null, filter.status ?? null, filter.source ?? null, filter.source ?? null) as StoredPair[]
  ).map(parsed);
}

/** What a run scores: the accepted pairs, of one source or all. */
export const pairsToRun = (agentId: number, source: PairSource | null = null) => listPairs(agentId, { status: "accepted", source });

export function getPair(agentId: number, id: number): Pair {
  const row = db().prepare("SELECT * FROM pairs WHERE id = ? AND agent_id = ?").get(id, agentId) as StoredPair | undefined;
  if (!row) throw notFound(`Labeled pair ${id} of agent ${agentId}`);
  return parsed(row);
}

export function findPair(agentId: number, query: string, expectedFilename: string): Pair | undefined {
  const row = db()
    .prepare("SELECT * FROM pairs WHERE agent_id = ? AND query = ? AND expected_filename = ?")
    .get(agentId, query, expectedFilename) as StoredPair | undefined;
  return row && parsed(row);
}

const pairName = (query: string, expected: string) =>
  expected ? `The pair "${query}" -> ${expected}` : `The unanswerable pair "${query}"`;

export function createPair(
  agentId: number,
  input: {
    query: string;
    expected_filename: string;
    note?: string | null;
    source?: PairSource;
    status?: PairStatus;
    filter?: Record<string, unknown> | null;
  },
): Pair {
  if (findPair(agentId, input.query, input.expected_filename)) {
    throw conflict(`${pairName(input.query, input.expected_filename)} already exists.`);
  }
  const t = now();
  const { lastInsertRowid } = db()
    .prepare(
      "INSERT INTO pairs (agent_id, query, expected_filename, note, source, status, created_at, updated_at, filter) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .run(
      agentId,
      input.query,
      input.expected_filename,
      input.note ?? null,
      input.source ?? "manual",
      input.status ?? "accepted",
      t,
      t,
      stored(input.filter),
    );
  return getPair(agentId, Number(lastInsertRowid));
}

export function updatePair(
  agentId: number,
  id: number,
  input: { query?: string; expected_filename?: string; note?: string | null; status?: PairStatus; filter?: Record<string, unknown> | null },
): Pair {
  const pair = getPair(agentId, id);
  const next = { ...pair, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
  const other = findPair(agentId, next.query, next.expected_filename);
  if (other && other.id !== id) throw conflict(`${pairName(next.query, next.expected_filename)} already exists.`);
  db().transaction(() => {
    // A proposal reworded (or pointed at another document) is not proposed again as it was.
    const reworded = questionKey(next.query) !== questionKey(pair.query) || next.expected_filename !== pair.expected_filename;
    if (isProposal(pair) && reworded) dismissQuestion(agentId, questionKey(pair.query), pair.expected_filename);
    db()
      .prepare(
        "UPDATE pairs SET query = ?, expected_filename = ?, note = ?, status = ?, filter = ?, updated_at = ? WHERE id = ? AND agent_id = ?",
      )
      .run(next.query, next.expected_filename, next.note, next.status, stored(next.filter), now(), id, agentId);
  })();
  return getPair(agentId, id);
}

/** Deletes a pair; a generated proposal deleted is a rejection, remembered (dismissQuestion). */
export function deletePair(agentId: number, id: number): void {
  const pair = getPair(agentId, id);
  db().transaction(() => {
    if (isProposal(pair)) dismissQuestion(agentId, questionKey(pair.query), pair.expected_filename);
    db().prepare("DELETE FROM pairs WHERE id = ? AND agent_id = ?").run(id, agentId);
  })();
}

const isProposal = (p: Pair) => p.source === "generated" && p.status === "proposed";

/** Inserts many pairs in one transaction: all of them or, on any error, none. */
export function insertPairs(
  agentId: number,
  rows: { query: string; expected_filename: string; note: string | null; filter?: Record<string, unknown> | null }[],
  as: { source: PairSource; status: PairStatus } = { source: "import", status: "accepted" },
): number {
  const t = now();
  const insert = db().prepare(
    "INSERT INTO pairs (agent_id, query, expected_filename, note, source, status, created_at, updated_at, filter) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  db().transaction(() => {
    for (const r of rows) insert.run(agentId, r.query, r.expected_filename, r.note, as.source, as.status, t, t, stored(r.filter));
  })();
  return rows.length;
}

/** Remembers a generated question a person rejected or reworded, so generation does not propose it again. */
export function dismissQuestion(agentId: number, key: string, expectedFilename: string): void {
  db()
    .prepare("INSERT OR IGNORE INTO dismissed_questions (agent_id, key, expected_filename, dismissed_at) VALUES (?, ?, ?, ?)")
    .run(agentId, key, expectedFilename, now());
}

/** The dismissed questions of the agent, as `key\u0000filename`. */
export function dismissedQuestions(agentId: number): Set<string> {
  const rows = db().prepare("SELECT key, expected_filename FROM dismissed_questions WHERE agent_id = ?").all(agentId) as {
    key: string;
    expected_filename: string;
  }[];
  return new Set(rows.map((r) => `${r.key}\u0000${r.expected_filename}`));
}
