import "server-only";
import { db, now } from "./client";
import { conflict, notFound } from "../http/errors";

export interface Pair {
  id: number;
  agent_id: number;
  query: string;
  expected_filename: string;
  note: string | null;
  created_at: string;
  updated_at: string;
}

export function listPairs(agentId: number): Pair[] {
  return db().prepare("SELECT * FROM pairs WHERE agent_id = ? ORDER BY id").all(agentId) as Pair[];
}

export function getPair(agentId: number, id: number): Pair {
  const row = db().prepare("SELECT * FROM pairs WHERE id = ? AND agent_id = ?").get(id, agentId) as Pair | undefined;
  if (!row) throw notFound(`Labeled pair ${id} of agent ${agentId}`);
  return row;
}

export function findPair(agentId: number, query: string, expectedFilename: string): Pair | undefined {
  return db()
    .prepare("SELECT * FROM pairs WHERE agent_id = ? AND query = ? AND expected_filename = ?")
    .get(agentId, query, expectedFilename) as Pair | undefined;
}

const pairName = (query: string, expected: string) => (expected ? `The pair "${query}" -> ${expected}` : `The unanswerable pair "${query}"`);

export function createPair(agentId: number, input: { query: string; expected_filename: string; note?: string | null }): Pair {
  if (findPair(agentId, input.query, input.expected_filename)) {
    throw conflict(`${pairName(input.query, input.expected_filename)} already exists.`);
  }
  const t = now();
  const { lastInsertRowid } = db()
    .prepare("INSERT INTO pairs (agent_id, query, expected_filename, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(agentId, input.query, input.expected_filename, input.note ?? null, t, t);
  return getPair(agentId, Number(lastInsertRowid));
}

export function updatePair(agentId: number, id: number, input: { query?: string; expected_filename?: string; note?: string | null }): Pair {
  const pair = getPair(agentId, id);
  const next = { ...pair, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
  const other = findPair(agentId, next.query, next.expected_filename);
  if (other && other.id !== id) throw conflict(`${pairName(next.query, next.expected_filename)} already exists.`);
  db()
    .prepare("UPDATE pairs SET query = ?, expected_filename = ?, note = ?, updated_at = ? WHERE id = ? AND agent_id = ?")
    .run(next.query, next.expected_filename, next.note, now(), id, agentId);
  return getPair(agentId, id);
}

export function deletePair(agentId: number, id: number): void {
  getPair(agentId, id);
  db().prepare("DELETE FROM pairs WHERE id = ? AND agent_id = ?").run(id, agentId);
}

/** Inserts many pairs in one transaction: all of them or, on any error, none. */
export function insertPairs(agentId: number, rows: { query: string; expected_filename: string; note: string | null }[]): number {
  const t = now();
  const insert = db().prepare(
    "INSERT INTO pairs (agent_id, query, expected_filename, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  db().transaction(() => {
    for (const r of rows) insert.run(agentId, r.query, r.expected_filename, r.note, t, t);
  })();
  return rows.length;
}
