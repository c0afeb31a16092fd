import "server-only";
import { AppError, invalid, notFound } from "../core/errors";
import { BUILT_IN_KEYS, isBuiltInKey, isKeyName, patchedMetadata, type Metadata, type MetadataPatch } from "../core/metadata";
import { filterKeys, type Filter, type FilterNode, type Scalar } from "../core/filter";
import { db, now } from "./client";
import { dbState } from "./state";

/**
 * Document metadata in SQLite: the team's own keys as one JSON object per document version
 * (documents.metadata), the built-in fields as the columns they are. A filter is a predicate
 * over documents (lib/core/filter.ts) turned into SQL here; chunks inherit their document's
 * metadata through their document id, which every index carries (the exact tables' rows, the
 * keyword index's rowids, the vector store's chunk ids), so a change of metadata is one row's
 * update, seen by every index at once, with nothing re-embedded or re-written.
 */

/** Parses the metadata column of a row read with it. */
export const metadataOf = (json: string | null | undefined): Metadata => (json ? (JSON.parse(json) as Metadata) : {});

/**
 * Applies `patch` (null removes a key) to each of the agent's documents `ids`, in one
 * transaction: all of them change or none (a 404 naming a document the agent does not have, a
 * 409 for one staged in a draft). Each document's updated_at moves. A newer version of the same
 * name still indexing took its keys from the version it replaces when its row was written: it
 * gets the change too, so the change is not lost when it replaces that version. Returns the new
 * metadata of the documents asked for.
 */
export function patchDocumentsMetadata(agentId: number, ids: number[], patch: MetadataPatch): Map<number, Metadata> {
  return db().transaction(() => {
    const out = new Map<number, Metadata>();
    const read = db().prepare("SELECT id, filename, draft_id, metadata FROM documents WHERE id = ? AND agent_id = ?");
    const indexing = db().prepare(
      "SELECT id, metadata FROM documents WHERE agent_id = ? AND filename = ? AND id > ? AND status = 'indexing' AND draft_id IS NULL",
    );
    const write = db().prepare("UPDATE documents SET metadata = ?, updated_at = ? WHERE id = ?");
    const t = now();
    for (const id of new Set(ids)) {
      const row = read.get(id, agentId) as { id: number; filename: string; draft_id: number | null; metadata: string } | undefined;
      if (!row) throw notFound(`Document ${id} of agent ${agentId}`);
      if (row.draft_id !== null) throw new AppError("conflict", `Document ${id} is staged in draft ${row.draft_id}; change it there.`);
      const next = patchedMetadata(metadataOf(row.metadata), patch);
      write.run(JSON.stringify(next), t, id);
      out.set(id, next);
      for (const v of indexing.all(agentId, row.filename, id) as { id: number; metadata: string }[])
        write.run(JSON.stringify(patchedMetadata(metadataOf(v.metadata), patch)), t, v.id);
    }
    dbState().metadataChanges++;
    return out;
  })();
}

// --- Filters -------------------------------------------------------------------------------

const COLUMN: Record<(typeof BUILT_IN_KEYS)[number], string> = {
  filename: "d.filename",
  type: "d.type",
  source_url: "d.source_url",
  created_at: "d.created_at",
  updated_at: "d.updated_at",
};

interface Sql {
  sql: string;
  params: unknown[];
}

/** A name no key can have (lib/core/filter.ts refuses it; a filter kept from elsewhere may hold one): no document has it. */
const NO_KEY: Sql = { sql: "0", params: [] };

/** A JSON path naming one key, bound as a parameter (never written into the SQL). */
const pathOf = (key: string) => `$."${key}"`;

/** `value`'s equality with a document's value of `key`: a list value matches when one of its items does. */
function equals(key: string, value: Scalar): Sql {
  if (isBuiltInKey(key)) return { sql: `${COLUMN[key]} = ?`, params: [value] };
  if (!isKeyName(key)) return NO_KEY;
  const p = pathOf(key);
  if (typeof value === "boolean") return { sql: "json_type(d.metadata, ?) = ?", params: [p, value ? "true" : "false"] };
  if (typeof value === "number")
    return { sql: "(json_type(d.metadata, ?) IN ('integer', 'real') AND json_extract(d.metadata, ?) = ?)", params: [p, p, value] };
  return {
    sql: `(CASE json_type(d.metadata, ?) WHEN 'text' THEN json_extract(d.metadata, ?) = ?
            WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(d.metadata, ?) WHERE value = ?) ELSE 0 END)`,
    params: [p, p, value, p, value],
  };
}

const OPERATOR = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;

function ordered(key: string, op: keyof typeof OPERATOR, value: string | number): Sql {
  const sign = OPERATOR[op];
  if (isBuiltInKey(key)) return { sql: `(${COLUMN[key]} IS NOT NULL AND ${COLUMN[key]} ${sign} ?)`, params: [value] };
  if (!isKeyName(key)) return NO_KEY;
  const p = pathOf(key);
  if (typeof value === "number")
    return {
      sql: `(json_type(d.metadata, ?) IN ('integer', 'real') AND json_extract(d.metadata, ?) ${sign} ?)`,
      params: [p, p, value],
    };
  // Dates are ISO strings: compared as text among values that are dates.
  return {
    sql: `(json_type(d.metadata, ?) = 'text' AND json_extract(d.metadata, ?) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
           AND json_extract(d.metadata, ?) ${sign} ?)`,
    params: [p, p, p, value],
  };
}

const any = (parts: Sql[], joiner: "AND" | "OR", empty: string): Sql =>
  parts.length === 0
    ? { sql: empty, params: [] }
    : { sql: `(${parts.map((p) => p.sql).join(` ${joiner} `)})`, params: parts.flatMap((p) => p.params) };

const not = (s: Sql): Sql => ({ sql: `NOT COALESCE(${s.sql}, 0)`, params: s.params });

/** The filter as an SQL condition over `documents d`. */
export function filterSql(node: FilterNode): Sql {
  if ("and" in node) return any(node.and.map(filterSql), "AND", "1");
  if ("or" in node) return any(node.or.map(filterSql), "OR", "0");
  const { key, op, value } = node;
  switch (op) {
    case "$eq":
    case "$contains":
      return equals(key, value as Scalar);
    case "$ne":
      return not(equals(key, value as Scalar));
    case "$in":
      return any(
        (value as Scalar[]).map((v) => equals(key, v)),
        "OR",
        "0",
      );
    case "$nin":
      return not(
        any(
          (value as Scalar[]).map((v) => equals(key, v)),
          "OR",
          "0",
        ),
      );
    default:
      return ordered(key, op, value as string | number);
  }
}

/** Documents whose keys a filter may name: the agent's served and staged versions. */
const NAMEABLE = "d.agent_id = ? AND d.status IN ('ready', 'draft')";

/** The team's own keys among the agent's documents, sorted. */
export function agentMetadataKeys(agentId: number): string[] {
  return (
    db()
      .prepare(`SELECT DISTINCT j.key AS key FROM documents d, json_each(d.metadata) j WHERE ${NAMEABLE} ORDER BY j.key`)
      .all(agentId) as { key: string }[]
  ).map((r) => r.key);
}

/**
 * A 422 `unknown_filter_key` naming the first key of the filter that is neither built in nor
 * held by any document of the agent, with the keys that are; nothing when all are known.
 */
export function assertKnownKeys(agentId: number, filter: Filter): void {
  const has = db().prepare(
    `SELECT 1 FROM documents d INDEXED BY documents_filter WHERE ${NAMEABLE} AND json_type(d.metadata, ?) IS NOT NULL LIMIT 1`,
  );
  for (const key of filterKeys(filter.node)) {
    if (isBuiltInKey(key) || has.get(agentId, pathOf(key))) continue;
    const own = agentMetadataKeys(agentId);
    const known = own.length ? `Its documents' keys: ${own.join(", ")}.` : "Its documents have no metadata keys of their own yet.";
    throw new AppError(
      "unknown_filter_key",
      `No document of this agent has the metadata key "${key}". ${known} Built-in fields: ${BUILT_IN_KEYS.join(", ")}.`,
    );
  }
}

/** Filters resolved and kept (filterMatches); past it the least recently used goes. */
const CACHED_FILTERS = 256;
/** Fields a ready document's row changes in place (a re-fetch, an import): a filter on them is resolved each time. */
const CHANGED_IN_PLACE = new Set(["created_at", "updated_at"]);

/**
 * The ready documents of the agent (and the draft versions `staged`) the filter matches, with
 * their chunk counts: what a filtered read ranks among. `stamp` is the agent's ready set
 * (readyStamp) read before: with it, the answer for the same filter is kept until the ready set
 * or any document's metadata changes (resolving it reads every ready document's metadata: about
 * 2 ms per 1,000 documents).
 */
export function matchingDocuments(agentId: number, filter: Filter, staged: number[] = [], stamp?: string): Map<number, number> {
  const cacheable = stamp !== undefined && staged.length === 0 && !filterKeys(filter.node).some((k) => CHANGED_IN_PLACE.has(k));
  const state = dbState();
  const key = cacheable ? `${agentId}|${stamp}|${state.metadataChanges}|${JSON.stringify(filter.where)}` : null;
  const kept = key === null ? undefined : state.filterMatches.get(key);
  if (kept) {
    state.filterMatches.delete(key!);
    state.filterMatches.set(key!, kept);
    return new Map(kept);
  }
  const where = filterSql(filter.node);
  const ready = db()
    .prepare(
      `SELECT d.id AS id, d.chunk_count AS chunks FROM documents d INDEXED BY documents_filter
       WHERE d.agent_id = ? AND d.status = 'ready' AND ${where.sql}`,
    )
    .all(agentId, ...where.params) as { id: number; chunks: number }[];
  const inDraft =
    staged.length === 0
      ? []
      : (db()
          .prepare(
            `SELECT d.id AS id, d.chunk_count AS chunks FROM documents d
             WHERE d.id IN (SELECT value FROM json_each(?)) AND d.agent_id = ? AND ${where.sql}`,
          )
          .all(JSON.stringify(staged), agentId, ...where.params) as { id: number; chunks: number }[]);
  const found = new Map([...ready, ...inDraft].map((r) => [r.id, r.chunks]));
  if (key !== null) {
    state.filterMatches.set(key, new Map(found));
    for (const old of state.filterMatches.keys()) {
      if (state.filterMatches.size <= CACHED_FILTERS) break;
      state.filterMatches.delete(old);
    }
  }
  return found;
}

/** The agent's documents listed by the browser that match a filter (any status but draft): their ids. */
export function listedMatching(agentId: number, filter: Filter): Set<number> {
  const where = filterSql(filter.node);
  const rows = db()
    .prepare(`SELECT d.id AS id FROM documents d WHERE d.agent_id = ? AND d.draft_id IS NULL AND ${where.sql}`)
    .all(agentId, ...where.params) as { id: number }[];
  return new Set(rows.map((r) => r.id));
}

// --- Facets -------------------------------------------------------------------------------

export interface Facet {
  key: string;
  /** Ready documents with the key. */
  documents: number;
  /** Its most common values (a list's items each count), with how many ready documents have each. */
  values: { value: string | number | boolean; documents: number }[];
  /** Values past those listed. */
  more: number;
}

const FACET_VALUES = 20;

/** Each of the agent's own keys among its ready documents, with its commonest values. */
export function agentFacets(agentId: number): Facet[] {
  const rows = db()
    .prepare(
      `WITH kv AS (
         SELECT d.id AS doc, j.key AS key, CASE j.type WHEN 'array' THEN NULL ELSE j.type END AS type, j.value AS value
           FROM documents d, json_each(d.metadata) j WHERE d.agent_id = ? AND d.status = 'ready' AND j.type != 'array'
         UNION ALL
         SELECT d.id, j.key, 'text', i.value
           FROM documents d, json_each(d.metadata) j, json_each(j.value) i WHERE d.agent_id = ? AND d.status = 'ready' AND j.type = 'array'
       )
       SELECT key, type, value, COUNT(DISTINCT doc) AS n FROM kv GROUP BY key, type, value ORDER BY key, n DESC, value`,
    )
    .all(agentId, agentId) as { key: string; type: string; value: string | number; n: number }[];
  const docs = new Map(
    (
      db()
        .prepare(
          `SELECT j.key AS key, COUNT(DISTINCT d.id) AS n FROM documents d, json_each(d.metadata) j
           WHERE d.agent_id = ? AND d.status = 'ready' GROUP BY j.key`,
        )
        .all(agentId) as { key: string; n: number }[]
    ).map((r) => [r.key, r.n]),
  );
  const facets = new Map<string, Facet>();
  for (const r of rows) {
    const f = facets.get(r.key) ?? { key: r.key, documents: docs.get(r.key) ?? 0, values: [], more: 0 };
    facets.set(r.key, f);
    const value = r.type === "true" ? true : r.type === "false" ? false : r.value;
    if (f.values.length < FACET_VALUES) f.values.push({ value, documents: r.n });
    else f.more++;
  }
  return [...facets.values()];
}

/** Refuses ids that are not whole numbers (the bulk edit's list). */
export function documentIdsOf(input: unknown): number[] {
  if (!Array.isArray(input) || input.length === 0 || !input.every((n) => Number.isSafeInteger(n) && n > 0))
    throw invalid("document_ids must be a non-empty list of document ids.");
  if (input.length > 10_000) throw invalid("At most 10,000 documents change at once.");
  return input as number[];
}
