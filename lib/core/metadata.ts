import { invalid } from "./errors";

/**
 * Document metadata: the built-in fields every document has (its columns) and the team's own
 * keys, each a string, a number, a boolean, a date (an ISO 8601 string) or a list of strings.
 * The own keys are kept per document version as one JSON object (lib/db/metadata.ts); chunks
 * inherit them through their document. Shared by the server and the pages (no server imports).
 */

export type MetadataValue = string | number | boolean | string[];
export type Metadata = Record<string, MetadataValue>;

/** Fields every document has, read from its row; a filter may name them, an upload may not set them. */
export const BUILT_IN_KEYS = ["filename", "type", "source_url", "created_at", "updated_at"] as const;
export type BuiltInKey = (typeof BUILT_IN_KEYS)[number];

/** Names the chunks' own fields take in the vector store: not a team's key either, to keep the two apart. */
const RESERVED_KEYS = new Set<string>([...BUILT_IN_KEYS, "agent_id", "document_id", "chunk_index", "start", "end", "id", "status"]);

export const MAX_METADATA_KEYS = 32;
export const MAX_VALUE_CHARS = 500;
export const MAX_LIST_ITEMS = 50;
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export const isBuiltInKey = (key: string): key is BuiltInKey => (BUILT_IN_KEYS as readonly string[]).includes(key);

/** Whether `key` is written as a metadata key may be (a filter naming anything else names no key). */
export const isKeyName = (key: string): boolean => KEY.test(key);

/** A date as a filter compares it: 2026-03-01, optionally with a time and zone. */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Why a key cannot be a team's own, or null when it can. */
export function keyProblem(key: string): string | null {
  if (!KEY.test(key))
    return `"${key}" is not a metadata key: use letters, digits, "_", "." or "-", starting with a letter or "_", at most 64 characters.`;
  if (RESERVED_KEYS.has(key))
    return isBuiltInKey(key)
      ? `"${key}" is a built-in field of every document; it cannot be set.`
      : `"${key}" is reserved; pick another name.`;
  return null;
}

/** One value checked: a string, a finite number, a boolean or a list of strings, within the limits. */
function checkValue(key: string, value: unknown): MetadataValue {
  const long = (s: string) => s.length > MAX_VALUE_CHARS;
  if (typeof value === "string") {
    const s = value.trim();
    if (!s) throw invalid(`Metadata "${key}" is empty; remove the key with null instead.`);
    if (long(s)) throw invalid(`Metadata "${key}" is longer than ${MAX_VALUE_CHARS} characters.`);
    return s;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalid(`Metadata "${key}" must be a finite number.`);
    return value;
  }
  if (typeof value === "boolean") return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST_ITEMS) throw invalid(`Metadata "${key}" has more than ${MAX_LIST_ITEMS} items.`);
    const items = value.map((v) => (typeof v === "number" && Number.isFinite(v) ? String(v) : v));
    if (!items.every((v): v is string => typeof v === "string" && v.trim() !== "" && !long(v.trim())))
      throw invalid(`Metadata "${key}" is a list; its items must be non-empty strings of at most ${MAX_VALUE_CHARS} characters.`);
    return [...new Set(items.map((v) => v.trim()))];
  }
  const kind = value === null ? "null" : typeof value === "object" ? "an object" : typeof value;
  throw invalid(`Metadata "${key}" is ${kind}; a value is a string, a number, true or false, a date, or a list of strings.`);
}

function asObject(input: unknown, what: string): Record<string, unknown> {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw invalid(`${what} must be a JSON object of keys and values, as {"product": "router"}.`);
  return input as Record<string, unknown>;
}

/** A whole metadata object as given at upload or import: every key and value checked (422 naming the first wrong one). */
export function checkMetadata(input: unknown, what = "metadata"): Metadata {
  const out: Metadata = {};
  for (const [key, value] of Object.entries(asObject(input, what))) {
    const problem = keyProblem(key);
    if (problem) throw invalid(problem);
    out[key] = checkValue(key, value);
  }
  if (Object.keys(out).length > MAX_METADATA_KEYS) throw invalid(`A document has at most ${MAX_METADATA_KEYS} metadata keys.`);
  return out;
}

/** A change of metadata: values to set, null to remove a key. */
export type MetadataPatch = Record<string, MetadataValue | null>;

export function checkMetadataPatch(input: unknown): MetadataPatch {
  const out: MetadataPatch = {};
  for (const [key, value] of Object.entries(asObject(input, "metadata"))) {
    const problem = keyProblem(key);
    if (problem) throw invalid(problem);
    out[key] = value === null ? null : checkValue(key, value);
  }
  return out;
}

/** `current` with `patch` applied (null removes a key), within the key limit. */
export function patchedMetadata(current: Metadata, patch: MetadataPatch): Metadata {
  const out: Metadata = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  if (Object.keys(out).length > MAX_METADATA_KEYS) throw invalid(`A document has at most ${MAX_METADATA_KEYS} metadata keys.`);
  return out;
}

/** Keys read from a file (front matter, meta tags) that cannot be a team's key are left out, not refused. */
export function readableMetadata(input: Record<string, unknown>): Metadata {
  const out: Metadata = {};
  for (const [key, value] of Object.entries(input)) {
    if (keyProblem(key) || Object.keys(out).length >= MAX_METADATA_KEYS) continue;
    try {
      out[key] = checkValue(key, value);
    } catch {
      // a nested object or an empty value: not metadata a filter could use
    }
  }
  return out;
}

/** A value as the document list and the facets show it. */
export const formatValue = (v: MetadataValue): string => (Array.isArray(v) ? v.join(", ") : String(v));
