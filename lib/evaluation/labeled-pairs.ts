import "server-only";
import { listDocuments } from "../db/documents";
import { AppError } from "../core/errors";
import { parseFilter } from "../core/filter";
import { assertKnownKeys } from "../db/metadata";
import { createPair, insertPairs, listPairs, updatePair, type Pair } from "../db/pairs";
import { NO_DOCUMENT, pairSchema, type PairInput, type PairSource, type PairStatus } from "../validations/pair";
import { markQuestionLabeled } from "../db/questions";
import { questionKey } from "../core/normalize";
import type { RawPairRow } from "./pair-files";

export type RejectReason = "empty query" | "unknown document" | "duplicate" | "invalid row" | "invalid filter";

export interface RejectedRow {
  row: number;
  query: string | null;
  expected: string | null;
  reason: RejectReason;
  message: string;
}

export interface ImportReport {
  accepted: number;
  rejected: RejectedRow[];
}

/** The agent's indexed documents, looked up by filename or by id. */
function indexedDocuments(agentId: number) {
  const ready = listDocuments(agentId).filter((d) => d.status === "ready");
  return { filenames: new Set(ready.map((d) => d.filename)), byId: new Map(ready.map((d) => [String(d.id), d.filename])) };
}

/** A filename wins over an id, so a file named "12" stays reachable by its name. */
function resolve(docs: ReturnType<typeof indexedDocuments>, expected: string): string | undefined {
  if (docs.filenames.has(expected)) return expected;
  return docs.byId.get(expected);
}

/** The id of each indexed filename now, for links that must survive a re-upload. */
export function documentIdsByFilename(agentId: number): Map<string, number> {
  const ids = new Map<string, number>();
  for (const d of listDocuments(agentId)) if (d.status === "ready" && !ids.has(d.filename)) ids.set(d.filename, d.id);
  return ids;
}

const unknownDocument = (expected: string) =>
  expected ? `No indexed document "${expected}" in this agent (give its filename or document id).` : "No expected document given.";

const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);

/** Accepts the valid rows, in one transaction, and reports each rejected row with its reason. */
export function importPairs(agentId: number, rows: RawPairRow[]): ImportReport {
  const docs = indexedDocuments(agentId);
  const seen = new Map(listPairs(agentId).map((p) => [`${p.query}\u0000${p.expected_filename}`, 0]));
  const rejected: RejectedRow[] = [];
  const accepted: Parameters<typeof insertPairs>[1] = [];
  for (const raw of rows) {
    const reject = (reason: RejectReason, message: string) =>
      rejected.push({ row: raw.row, query: text(raw.query), expected: text(raw.expected), reason, message });
    if (raw.error) {
      reject("invalid row", raw.error);
      continue;
    }
    if (text(raw.query)?.trim() === "" || raw.query === undefined || raw.query === null) {
      reject("empty query", "The query is empty.");
      continue;
    }
    const parsed = pairSchema.safeParse({
      query: raw.query,
      expected: raw.expected ?? "",
      answerable: raw.answerable,
      note: raw.note === "" ? null : raw.note,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      if (issue.path[0] === "expected" && raw.answerable !== false)
        reject("unknown document", unknownDocument(text(raw.expected)?.trim() ?? ""));
      else reject("invalid row", `${issue.path.join(".") || "row"}: ${issue.message}`);
      continue;
    }
    const filename = parsed.data.answerable ? resolve(docs, parsed.data.expected) : NO_DOCUMENT;
    if (filename === undefined) {
      reject("unknown document", unknownDocument(parsed.data.expected));
      continue;
    }
    let filter: Record<string, unknown> | null | undefined;
    try {
      filter = pairFilter(agentId, raw.filter === "" ? undefined : raw.filter);
    } catch (err) {
      reject("invalid filter", err instanceof Error ? err.message : String(err));
      continue;
    }
    const key = `${parsed.data.query}\u0000${filename}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      reject("duplicate", earlier ? `Same query and document as row ${earlier}.` : "This pair already exists.");
      continue;
    }
    seen.set(key, raw.row);
    accepted.push({ query: parsed.data.query, expected_filename: filename, note: parsed.data.note, filter });
  }
  insertPairs(agentId, accepted);
  return { accepted: accepted.length, rejected };
}

/** The filename of the agent's indexed document named by filename or id; 422 unknown_document otherwise. */
export function expectedFilename(agentId: number, expected: string): string {
  const filename = resolve(indexedDocuments(agentId), expected);
  if (!filename) throw new AppError("unknown_document", unknownDocument(expected));
  return filename;
}

/**
 * A pair's filter as given (undefined: not given; null: none), checked: a 422 for a malformed one
 * or one naming a key no document of the agent has.
 */
export function pairFilter(agentId: number, given: unknown): Record<string, unknown> | null | undefined {
  if (given === undefined) return undefined;
  const filter = parseFilter(given);
  if (!filter) return null;
  assertKnownKeys(agentId, filter);
  return filter.where;
}

/** A new accepted pair; the agent's logged question of the same wording, if any, is marked labeled with it. */
export function addPair(agentId: number, input: PairInput, source: PairSource = "manual"): Pair {
  const expected_filename = input.answerable ? expectedFilename(agentId, input.expected) : NO_DOCUMENT;
  const filter = pairFilter(agentId, input.filter);
  const pair = createPair(agentId, { query: input.query, expected_filename, note: input.note, source, filter });
  markQuestionLabeled(agentId, questionKey(pair.query), pair);
  return pair;
}

/** Edits a pair; `status` accepts a proposed one (or sets one back to proposed). */
export function editPair(agentId: number, id: number, input: Partial<PairInput> & { status?: PairStatus }): Pair {
  const expected_filename =
    input.answerable === false
      ? NO_DOCUMENT
      : input.expected === undefined || input.expected === ""
        ? undefined
        : expectedFilename(agentId, input.expected);
  const filter = pairFilter(agentId, input.filter);
  return updatePair(agentId, id, { query: input.query, expected_filename, note: input.note, status: input.status, filter });
}
