import { AppError } from "./errors";
import { ISO_DATE, isBuiltInKey, isKeyName } from "./metadata";

/**
 * A metadata filter in Chroma's `where` syntax, as the search, ask, the inspector, labeled pairs
 * and evaluation runs take it: `{"product": "router"}`, a key's operators `$eq $ne $gt $gte $lt
 * $lte $in $nin $contains`, and `$and` / `$or` over lists of filters. Several keys (or operators)
 * in one object must all hold. Checked here, before anything is read: a malformed one is a 422
 * naming the operator or value at fault. lib/db/metadata.ts turns it into SQL over the documents.
 *
 * What each operator means, for a document's value of the key:
 * - `$eq` (or a bare value) and `$in`: equal to the value (one of the values); a list value
 *   matches when one of its items does. `$contains`: the list holds the value (a single value
 *   equal to it counts too).
 * - `$ne` and `$nin`: not `$eq` / `$in`; a document without the key matches them.
 * - `$gt $gte $lt $lte`: numbers compared as numbers, dates (ISO 8601, 2026-03-01) as dates.
 */

export type Scalar = string | number | boolean;
export const COMPARISONS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$contains"] as const;
export type Comparison = (typeof COMPARISONS)[number];
const ORDERED = new Set<Comparison>(["$gt", "$gte", "$lt", "$lte"]);

export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { key: string; op: Comparison; value: Scalar | Scalar[] };

/** The filter as the client sent it (kept with logged calls and pairs) and as it is read. */
export interface Filter {
  where: Record<string, unknown>;
  node: FilterNode;
}

const bad = (message: string) => new AppError("invalid_filter", message);
const show = (v: unknown) => JSON.stringify(v);
const isScalar = (v: unknown): v is Scalar =>
  typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

function object(v: unknown, at: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw bad(`${at} must be an object, as {"product": "router"} or {"$and": [...]}; got ${show(v)}.`);
  return v as Record<string, unknown>;
}

function comparison(key: string, op: string, value: unknown): FilterNode {
  if (!(COMPARISONS as readonly string[]).includes(op)) {
    throw bad(`Unknown filter operator "${op}" on "${key}". Operators: ${COMPARISONS.join(", ")}; $and and $or combine filters.`);
  }
  const c = op as Comparison;
  if (c === "$in" || c === "$nin") {
    if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar))
      throw bad(`${c} on "${key}" takes a non-empty list of strings, numbers or booleans; got ${show(value)}.`);
    return { key, op: c, value };
  }
  if (!isScalar(value)) throw bad(`${c} on "${key}" takes a string, a number or a boolean; got ${show(value)}.`);
  if (ORDERED.has(c) && typeof value !== "number" && !(typeof value === "string" && ISO_DATE.test(value)))
    throw bad(`${c} on "${key}" compares numbers or dates (as 2026-03-01); got ${show(value)}.`);
  if (isBuiltInKey(key) && typeof value !== "string")
    throw bad(`"${key}" is a built-in text field; compare it with a string, not ${show(value)}.`);
  return { key, op: c, value };
}

function parseNode(where: Record<string, unknown>, at: string): FilterNode {
  const parts: FilterNode[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value) || value.length === 0)
        throw bad(`${key} takes a non-empty list of filters, as {"${key}": [{"a": 1}, {"b": 2}]}; got ${show(value)}.`);
      const nodes = value.map((v, i) => parseNode(object(v, `${key}[${i}]`), `${key}[${i}]`));
      parts.push(key === "$and" ? { and: nodes } : { or: nodes });
    } else if (key.startsWith("$")) {
      throw bad(
        `Unknown filter operator "${key}" at ${at}. Combine filters with $and or $or; compare a key with ${COMPARISONS.join(", ")}.`,
      );
    } else if (!isBuiltInKey(key) && !isKeyName(key)) {
      throw bad(`${show(key)} is not a metadata key: keys are letters, digits, "_", "." or "-", starting with a letter or "_".`);
    } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const ops = Object.entries(value);
      if (ops.length === 0) throw bad(`"${key}" has no operator; give one, as {"${key}": {"$eq": "value"}}.`);
      for (const [op, v] of ops) parts.push(comparison(key, op, v));
    } else {
      if (Array.isArray(value)) throw bad(`"${key}" is compared with a list; use {"${key}": {"$in": ${show(value)}}}.`);
      parts.push(comparison(key, "$eq", value));
    }
  }
  return parts.length === 1 ? parts[0] : { and: parts };
}

/** Deeper than this is not a filter a person wrote. */
const MAX_DEPTH = 8;
const MAX_CONDITIONS = 64;

function measure(node: FilterNode, depth = 1): number {
  if (depth > MAX_DEPTH) throw bad(`A filter nests at most ${MAX_DEPTH} levels of $and / $or.`);
  return "and" in node || "or" in node ? ("and" in node ? node.and : node.or).reduce((n, c) => n + measure(c, depth + 1), 0) : 1;
}

/** The filter of a request, or undefined without one (a 422 `invalid_filter` when it is malformed). */
export function parseFilter(input: unknown): Filter | undefined {
  if (input === undefined || input === null) return undefined;
  const where = object(input, "filter");
  const node = parseNode(where, "filter");
  if (measure(node) > MAX_CONDITIONS) throw bad(`A filter has at most ${MAX_CONDITIONS} conditions.`);
  return { where, node };
}

/** The keys a filter names, in order of first use. */
export function filterKeys(node: FilterNode): string[] {
  const keys = new Set<string>();
  const walk = (n: FilterNode) => {
    if ("and" in n) n.and.forEach(walk);
    else if ("or" in n) n.or.forEach(walk);
    else keys.add(n.key);
  };
  walk(node);
  return [...keys];
}
