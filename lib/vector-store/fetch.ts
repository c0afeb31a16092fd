import "server-only";
import {
  ChromaClientError,
  ChromaConnectionError,
  ChromaForbiddenError,
  ChromaNotFoundError,
  ChromaQuotaExceededError,
  ChromaRateLimitError,
  ChromaServerError,
  ChromaUnauthorizedError,
  ChromaUniqueError,
} from "chromadb";
import { markNotServed, markUnreadableIndex } from "../core/errors";
import { vectorStoreState } from "./state";

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** A Chroma call that got no complete answer within its deadline (a hung or overloaded server). */
export class ChromaTimeoutError extends ChromaConnectionError {
  constructor(
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super(`Chroma did not answer within ${seconds(timeoutMs)}`, cause);
    this.name = "ChromaTimeoutError";
  }
}

/** Chroma, or a proxy in front of it, answered that it is not serving (502, 503, 504). */
export class ChromaNotServingError extends ChromaServerError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`Chroma answered ${status}: ${message}`);
    this.name = "ChromaNotServingError";
  }
}

const NOT_SERVING = new Set([502, 503, 504]);

// The driver's errors for a call Chroma did not serve: refused, reset or timed out (ours included,
// as subclasses), or not serving. Its own transport names a status only when the body is not
// Chroma's JSON (a proxy's page). Marked here, so lib/core tells them apart without importing chromadb.
markNotServed(ChromaConnectionError);
markNotServed(ChromaServerError, (err) => /^50[234]: /.test(err.message));
markNotServed(ChromaNotServingError);

// Chroma (1.x, local) failing to load a collection's HNSW segment from disk: its
// index_metadata.pickle cut short ("Error deserializing pickle file: eval error at offset …: EOF
// while parsing") or a graph file hnswlib refuses ("Error loading hnsw index"); rust/segment/src/
// local_hnsw.rs, wrapped by local_segment_manager.rs. Every query, get, count, add and delete of the
// collection answers 500 with it until the index is rebuilt. An open that fails (permissions, too
// many open files) is not damage, and is left out.
const UNREADABLE_INDEX = /Error creating hnsw segment (?:reader|writer): (?:Error deserializing pickle file|Error loading hnsw index).*/;
const DETAIL_MAX = 200;
markUnreadableIndex(ChromaServerError, (err) => {
  const detail = UNREADABLE_INDEX.exec(err.message)?.[0]; // to the end of its line
  if (!detail) return null;
  return detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX - 1)}…` : detail;
});

// A shorter deadline for the Chroma calls made inside one piece of work (the health check).
// Process-wide like the client itself: pages and route handlers are bundled apart, and the
// client one bundle created must see the deadline another bundle set.
const deadline = vectorStoreState().deadline;

/** Runs `work` with every Chroma call inside it giving up after `ms` (or the client's limit, if shorter). */
export function withChromaDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  return deadline.run(ms, work);
}

function reason(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** The chromadb error class for a refused request, as the client's own transport would pick it. */
function errorFor(res: Response, text: string, url: string): Error {
  let body: { error?: string; message?: string } | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: a proxy's page or an empty body
  }
  const message = body?.message || body?.error || `${res.status}: ${res.statusText}`;
  if (NOT_SERVING.has(res.status)) return new ChromaNotServingError(res.status, message);
  switch (res.status) {
    case 400:
      return new ChromaClientError(`Bad request to ${url} with status: ${message}`);
    case 401:
      return new ChromaUnauthorizedError(`Unauthorized: ${message}`);
    case 403:
      return new ChromaForbiddenError(`You do not have permission to access the requested resource: ${message}`);
    case 404:
      return new ChromaNotFoundError(`The requested resource could not be found: ${message}`);
    case 409:
      return new ChromaUniqueError(`The resource already exists: ${message}`);
    case 422:
      return /^(Quota|Billing limit) exceeded/.test(message) ? new ChromaQuotaExceededError(message) : new ChromaClientError(message);
    case 429:
      return new ChromaRateLimitError(`Rate limit exceeded: ${message}`);
    default:
      return new ChromaServerError(message);
  }
}

// Whether the last Chroma call was refused (the server was down or restarting), and who wants to
// know when it answers again. Process-wide: every bundle's client shares it.
const chromaLink = () => vectorStoreState().link;

/** Calls `listener` each time Chroma answers after a call was refused (it restarted, or came back). */
export function onChromaBack(listener: () => void): void {
  chromaLink().listeners.push(listener);
}

function noteAnswer(refused: boolean): void {
  const l = chromaLink();
  if (refused) l.refused = true;
  else if (l.refused) {
    l.refused = false;
    for (const listener of l.listeners) listener();
  }
}

/**
 * The fetch the Chroma client sends every request through: a fresh deadline per request that
 * covers the whole answer (headers and body), connection failures as ChromaConnectionError
 * with the cause kept, and refusals as the chromadb error classes the rest of the client expects.
 */
export function chromaFetch(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const ms = Math.min(timeoutMs, deadline.getStore() ?? Infinity);
    const url = input instanceof Request ? input.url : String(input);
    // The deadline is a timer of our own that ends the call whatever fetch does. A signal alone
    // did not always: an audit against a stopped Chroma waited far past its deadline on a loaded
    // machine (docs/performance.md, 'Figures behind the code's choices'; a copied Request can
    // lose its signal once collected, undici #4068). The abort still asks fetch to drop the
    // connection.
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new ChromaTimeoutError(ms);
        controller.abort(err);
        reject(err);
      }, ms);
    });
    expired.catch(() => {}); // settled by the race below, or never looked at once the call answered
    let res: Response;
    let body: ArrayBuffer;
    try {
      res = await Promise.race([fetch(input, { ...init, signal: controller.signal }), expired]);
      body = await Promise.race([res.arrayBuffer(), expired]);
    } catch (err) {
      if (controller.signal.aborted) throw err instanceof ChromaTimeoutError ? err : new ChromaTimeoutError(ms, err);
      noteAnswer(true);
      throw new ChromaConnectionError(`Chroma is not reachable at ${new URL(url).origin} (${reason(err)})`, err);
    } finally {
      clearTimeout(timer);
    }
    noteAnswer(false);
    if (!res.ok) throw errorFor(res, new TextDecoder().decode(body), url);
    const empty = res.status === 204 || res.status === 205 || res.status === 304;
    return new Response(empty ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
