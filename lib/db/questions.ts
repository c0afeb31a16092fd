import "server-only";
import { notFound } from "../core/errors";
import { db, now } from "./client";

/**
 * The agent's questions from the tool-call log (lib/questions/): each logged search or ask of the
 * agent carries its normalised text (`question_key`); keys are grouped into questions, and a
 * group carries its triage. A group's first key stands for it (its text, its vector).
 */

export const QUESTION_STATUSES = ["open", "labeled", "unanswerable", "gap", "ignored"] as const;
export type QuestionStatus = (typeof QUESTION_STATUSES)[number];

export interface QuestionGroupRow {
  id: number;
  agent_id: number;
  key: string;
  status: QuestionStatus;
  expected_filename: string | null;
  pair_id: number | null;
  created_at: string;
  triaged_at: string | null;
}

/**
 * Keys in the log that no group holds yet, oldest first, with the text they were first asked in
 * and the id of that call (`first`): the next `limit` after the key whose first call was `after`.
 */
export function ungroupedKeys(agentId: number, after = 0, limit = -1): { key: string; text: string; first: number }[] {
  return db()
    .prepare(
      `SELECT question_key AS key, COALESCE(json_extract(input, '$.query'), json_extract(input, '$.question')) AS text, MIN(id) AS first
       FROM tool_calls t
       WHERE agent_id = ? AND question_key IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM question_keys k WHERE k.agent_id = t.agent_id AND k.key = t.question_key)
       GROUP BY question_key HAVING MIN(id) > ? ORDER BY first LIMIT ?`,
    )
    .all(agentId, after, limit) as { key: string; text: string; first: number }[];
}

// Pages of groups in id order, walked by the primary key: `+g.agent_id` keeps SQLite from taking
// the (agent_id, status) index, which would sort every group of the agent (vectors included) for each page.
const REPRESENTATIVES = `FROM question_groups g JOIN question_keys k ON k.agent_id = g.agent_id AND k.key = g.key
  WHERE +g.agent_id = @agent AND g.id > @after`;

/** The next `limit` groups after group `after` whose vector is of `model`, with it (unit length, float32). */
export function representativePage(agentId: number, model: string, after: number, limit: number): { group_id: number; vector: Buffer }[] {
  return db()
    .prepare(
      `SELECT g.id AS group_id, k.vector ${REPRESENTATIVES} AND k.model = @model AND k.vector IS NOT NULL ORDER BY g.id LIMIT @limit`,
    )
    .all({ agent: agentId, model, after, limit }) as { group_id: number; vector: Buffer }[];
}

/** The next `limit` groups after group `after` whose first wording has no vector of `model` (made with another, or its first wording went). */
export function staleRepresentatives(
  agentId: number,
  model: string,
  after: number,
  limit: number,
): { group_id: number; key: string; text: string }[] {
  return db()
    .prepare(
      `SELECT g.id AS group_id, g.key, k.text ${REPRESENTATIVES} AND (k.model IS NOT @model OR k.vector IS NULL) ORDER BY g.id LIMIT @limit`,
    )
    .all({ agent: agentId, model, after, limit }) as { group_id: number; key: string; text: string }[];
}

export function setRepresentativeVector(agentId: number, key: string, model: string, vector: Float32Array): void {
  db()
    .prepare("UPDATE question_keys SET model = ?, vector = ? WHERE agent_id = ? AND key = ?")
    .run(model, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), agentId, key);
}

/** A new group standing for `key`, which it holds with its vector. */
export function insertGroup(agentId: number, key: string, text: string, model: string, vector: Float32Array): number {
  const { lastInsertRowid } = db()
    .prepare("INSERT INTO question_groups (agent_id, key, created_at) VALUES (?, ?, ?)")
    .run(agentId, key, now());
  const groupId = Number(lastInsertRowid);
  db()
    .prepare("INSERT INTO question_keys (agent_id, key, group_id, text, model, vector) VALUES (?, ?, ?, ?, ?, ?)")
    .run(agentId, key, groupId, text, model, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  return groupId;
}

export function insertKey(agentId: number, key: string, text: string, groupId: number): void {
  db().prepare("INSERT INTO question_keys (agent_id, key, group_id, text) VALUES (?, ?, ?, ?)").run(agentId, key, groupId, text);
}

export function getGroup(agentId: number, groupId: number): QuestionGroupRow {
  const row = db().prepare("SELECT * FROM question_groups WHERE id = ? AND agent_id = ?").get(groupId, agentId) as
    QuestionGroupRow | undefined;
  if (!row) throw notFound(`Question ${groupId} of agent ${agentId}`);
  return row;
}

/** The wording that stands for a group (its first), or undefined when the group is not the agent's. */
export function groupText(agentId: number, groupId: number): string | undefined {
  const row = db()
    .prepare(
      "SELECT k.text FROM question_groups g JOIN question_keys k ON k.agent_id = g.agent_id AND k.key = g.key WHERE g.id = ? AND g.agent_id = ?",
    )
    .get(groupId, agentId) as { text: string } | undefined;
  return row?.text;
}

/** The metadata filter the latest call of a question group was made with, or null. */
export function groupFilter(agentId: number, groupId: number): Record<string, unknown> | null {
  const row = db()
    .prepare(
      `SELECT json_extract(t.input, '$.filter') AS filter FROM tool_calls t
       JOIN question_keys k ON k.agent_id = t.agent_id AND k.key = t.question_key
       WHERE t.agent_id = ? AND k.group_id = ? ORDER BY t.id DESC LIMIT 1`,
    )
    .get(agentId, groupId) as { filter: string | null } | undefined;
  return row?.filter ? (JSON.parse(row.filter) as Record<string, unknown>) : null;
}

/** The group that holds this key (the same question, normalised), if any. */
export function groupOfKey(agentId: number, key: string): QuestionGroupRow | undefined {
  return db()
    .prepare("SELECT g.* FROM question_groups g JOIN question_keys k ON k.group_id = g.id WHERE k.agent_id = ? AND k.key = ?")
    .get(agentId, key) as QuestionGroupRow | undefined;
}

export function setGroupStatus(
  agentId: number,
  groupId: number,
  status: QuestionStatus,
  pair: { id: number; expected: string } | null = null,
): void {
  db()
    .prepare("UPDATE question_groups SET status = ?, pair_id = ?, expected_filename = ?, triaged_at = ? WHERE id = ? AND agent_id = ?")
    .run(status, pair?.id ?? null, pair?.expected ?? null, status === "open" ? null : now(), groupId, agentId);
}

export interface QuestionFilter {
  since?: string | null;
  status?: QuestionStatus | null;
  /** Normalised words the question (any of its wordings) contains. */
  text?: string | null;
  limit: number;
}

export interface QuestionStatsRow extends QuestionGroupRow {
  text: string;
  asked: number;
  variants: number;
  first_asked: string;
  last_asked: string;
  best_distance: number | null;
  refused: number;
  latest_call: number;
}

/**
 * Each group with the figures of its calls (since @since): the calls are summed per key first,
 * through the (agent_id, question_key) index, then per group; joining groups to calls row by row
 * let SQLite pick a nested loop over every group for each call, slow on a large log
 * (docs/performance.md, 'Figures behind the code's choices').
 */
const GROUP_STATS = `
  WITH per_key AS (
    SELECT question_key AS key, COUNT(*) AS asked, MIN(created_at) AS first_asked, MAX(created_at) AS last_asked,
      MIN(json_extract(retrieval, '$.best')) AS best, SUM(COALESCE(refused, 0)) AS refused, MAX(id) AS latest_call,
      SUM(ok = 1 AND COALESCE(refused, 0) = 0 AND result_count > 0) AS answered
    FROM tool_calls WHERE agent_id = @agent AND question_key IS NOT NULL AND (@since IS NULL OR created_at >= @since)
    GROUP BY question_key)
  SELECT g.*, rk.text AS text, SUM(p.asked) AS asked, COUNT(*) AS variants, MIN(p.first_asked) AS first_asked,
    MAX(p.last_asked) AS last_asked, MIN(p.best) AS best_distance, SUM(p.refused) AS refused, MAX(p.latest_call) AS latest_call,
    SUM(p.answered) AS answered
  FROM per_key p
  JOIN question_keys k ON k.agent_id = @agent AND k.key = p.key
  JOIN question_groups g ON g.id = k.group_id
  JOIN question_keys rk ON rk.agent_id = g.agent_id AND rk.key = g.key
  GROUP BY g.id`;

/** Groups with their calls in the log (since `since`), the most asked first. */
export function questionStats(agentId: number, f: QuestionFilter): QuestionStatsRow[] {
  return db()
    .prepare(
      `SELECT * FROM (${GROUP_STATS})
       WHERE (@status IS NULL OR status = @status)
         AND (@text IS NULL OR EXISTS (SELECT 1 FROM question_keys k2 WHERE k2.group_id = id AND instr(k2.key, @text) > 0))
       ORDER BY asked DESC, last_asked DESC, id LIMIT @limit`,
    )
    .all({ agent: agentId, since: f.since ?? null, status: f.status ?? null, text: f.text || null, limit: f.limit }) as QuestionStatsRow[];
}

/** What the given calls returned and how they ended, by call id. */
export function callOutcomes(
  ids: number[],
): Map<number, { tool: string; retrieval: string | null; outcome: string | null; ok: number; created_at: string; filter: string | null }> {
  if (ids.length === 0) return new Map();
  const rows = db()
    .prepare(
      `SELECT id, tool, retrieval, outcome, ok, created_at, json_extract(input, '$.filter') AS filter
       FROM tool_calls WHERE id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as {
    id: number;
    tool: string;
    retrieval: string | null;
    outcome: string | null;
    ok: number;
    created_at: string;
    filter: string | null;
  }[];
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * After calls were pruned: keys no call holds go, groups no key holds go, and a group whose first
 * key went is stood for by another of its keys (its vector is made again at the next grouping).
 * A group's question text lives no longer than the calls that asked it; a pair made from it stays.
 */
export function forgetUnaskedQuestions(agentId: number): void {
  const d = db();
  d.prepare(
    `DELETE FROM question_keys WHERE agent_id = ?
       AND NOT EXISTS (SELECT 1 FROM tool_calls t WHERE t.agent_id = question_keys.agent_id AND t.question_key = question_keys.key)`,
  ).run(agentId);
  d.prepare(
    "DELETE FROM question_groups WHERE agent_id = ? AND NOT EXISTS (SELECT 1 FROM question_keys k WHERE k.group_id = question_groups.id)",
  ).run(agentId);
  d.prepare(
    `UPDATE question_groups SET key = (SELECT MIN(k.key) FROM question_keys k WHERE k.group_id = question_groups.id)
     WHERE agent_id = ? AND NOT EXISTS (SELECT 1 FROM question_keys k WHERE k.agent_id = question_groups.agent_id AND k.key = question_groups.key)`,
  ).run(agentId);
}

/** The agent's logged calls that still hold their question text (how the tab knows why it is empty). */
export function loggedQuestionCount(agentId: number): number {
  return (
    db().prepare("SELECT COUNT(*) AS n FROM tool_calls WHERE agent_id = ? AND question_key IS NOT NULL").get(agentId) as { n: number }
  ).n;
}

/**
 * A pair was made from a question (from the Questions tab or the inspector): the group holding
 * that wording, still open or a gap, is marked labeled (or unanswerable) with it.
 */
export function markQuestionLabeled(agentId: number, key: string, pair: { id: number; expected_filename: string }): void {
  const group = groupOfKey(agentId, key);
  if (!group || !(group.status === "open" || group.status === "gap")) return;
  setGroupStatus(agentId, group.id, pair.expected_filename ? "labeled" : "unanswerable", { id: pair.id, expected: pair.expected_filename });
}

/** Groups that may be gaps: marked `gap`, or open and never answered (refused each time), or never nearer than `beyond`. */
export function gapCandidates(agentId: number, beyond: number | null, limit: number): QuestionStatsRow[] {
  return db()
    .prepare(
      `SELECT * FROM (${GROUP_STATS})
       WHERE status = 'gap' OR (status = 'open' AND ((refused > 0 AND answered = 0) OR (@beyond IS NOT NULL AND best_distance > @beyond)))
       ORDER BY asked DESC, last_asked DESC, id LIMIT @limit`,
    )
    .all({ agent: agentId, since: null, beyond, limit }) as QuestionStatsRow[];
}

/** When each of these documents of the agent was added, and its filename, if it is still ready. */
export function readyDocumentDates(agentId: number, ids: number[]): Map<number, { filename: string; created_at: string }> {
  const rows = db()
    .prepare(
      "SELECT id, filename, created_at FROM documents WHERE agent_id = ? AND status = 'ready' AND id IN (SELECT value FROM json_each(?))",
    )
    .all(agentId, JSON.stringify(ids)) as { id: number; filename: string; created_at: string }[];
  return new Map(rows.map((r) => [r.id, r]));
}

export interface LoggedQuestionCall {
  id: number;
  text: string;
  group_id: number | null;
  created_at: string;
  retrieval: string;
  /** The metadata filter the call was made with (JSON), or null. */
  filter: string | null;
}

/**
 * The agent's logged questions that kept what they returned, newest first: the calls since
 * `since`, or the latest call of each of `groupIds`.
 */
export function loggedQuestionCalls(
  agentId: number,
  f: { since?: string | null; groupIds?: number[] | null; limit: number },
): LoggedQuestionCall[] {
  const base = `SELECT t.id, COALESCE(json_extract(t.input, '$.query'), json_extract(t.input, '$.question')) AS text, k.group_id, t.created_at, t.retrieval,
       json_extract(t.input, '$.filter') AS filter
     FROM tool_calls t LEFT JOIN question_keys k ON k.agent_id = t.agent_id AND k.key = t.question_key
     WHERE t.agent_id = @agent AND t.question_key IS NOT NULL AND t.ok = 1 AND t.retrieval IS NOT NULL`;
  if (f.groupIds) {
    return db()
      .prepare(
        `${base} AND t.id IN (
           SELECT MAX(t2.id) FROM tool_calls t2 JOIN question_keys k2 ON k2.agent_id = t2.agent_id AND k2.key = t2.question_key
           WHERE t2.agent_id = @agent AND t2.ok = 1 AND t2.retrieval IS NOT NULL AND k2.group_id IN (SELECT value FROM json_each(@ids))
           GROUP BY k2.group_id)
         ORDER BY t.id DESC LIMIT @limit`,
      )
      .all({ agent: agentId, ids: JSON.stringify(f.groupIds), limit: f.limit }) as LoggedQuestionCall[];
  }
  return db()
    .prepare(`${base} AND (@since IS NULL OR t.created_at >= @since) ORDER BY t.id DESC LIMIT @limit`)
    .all({ agent: agentId, since: f.since ?? null, limit: f.limit }) as LoggedQuestionCall[];
}

/**
 * What changed the agent's answers since its latest logged question: its documents (an upload,
 * a replace, a re-index; a deleted document leaves no row to tell) or its settings (mode, cut);
 * null when nothing did.
 */
export function changedSinceLastQuestion(agentId: number): { at: string; what: "documents" | "settings" } | null {
  const row = db()
    .prepare(
      `SELECT (SELECT MAX(created_at) FROM tool_calls WHERE agent_id = @a AND question_key IS NOT NULL) AS asked,
         (SELECT MAX(updated_at) FROM documents WHERE agent_id = @a) AS documents,
         (SELECT updated_at FROM agents WHERE id = @a) AS settings`,
    )
    .get({ a: agentId }) as { asked: string | null; documents: string | null; settings: string };
  if (!row.asked) return null;
  const documents = row.documents && row.documents > row.asked ? row.documents : null;
  const settings = row.settings > row.asked ? row.settings : null;
  if (!documents && !settings) return null;
  return documents && (!settings || documents >= settings) ? { at: documents, what: "documents" } : { at: settings!, what: "settings" };
}
