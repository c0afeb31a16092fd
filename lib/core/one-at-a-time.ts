import "server-only";
import { coreState, type Held } from "./state";
import { conflict } from "./errors";

// Slow work a client can start runs one at a time per key in this process: one map of what holds
// each key per process (Next may load this module more than once).
const held = () => coreState().oneAtATime;

export interface Claim {
  /** What runs under the claim now (the next run of a chain), started now. */
  rename(what: string): void;
  /** Frees the key, or hands it to the work waiting for it; a no-op once done. */
  release(): void;
}

/** "12 s", "4 min", "2 h": how long ago `since` was, for a person deciding whether to wait. */
function ago(since: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

function refusal(current: Held, advice: string): Error {
  const waiting = current.next?.what;
  const next = waiting ? `, and ${waiting[0].toLowerCase()}${waiting.slice(1)} waits to run next` : "";
  return conflict(`${current.what} is already running (started ${current.since}, ${ago(current.since)} ago)${next}. ${advice}`);
}

function take(key: string, entry: Held): Claim {
  held().set(key, entry);
  return {
    rename(next) {
      entry.what = next;
      entry.since = new Date().toISOString();
    },
    release() {
      if (held().get(key) !== entry) return;
      held().delete(key);
      // Handed over at once, so no request between the two can claim the key.
      entry.next?.take();
    },
  };
}

/**
 * Claims `key`, or throws 409 conflict naming what holds it and since when, with `advice` on what
 * to do. Synchronous, so two requests started together cannot both get it.
 */
export function claim(key: string, what: string, advice: string): Claim {
  const current = held().get(key);
  if (current) throw refusal(current, advice);
  return take(key, { what, since: new Date().toISOString() });
}

/**
 * Claims `key` as soon as what holds it now finishes, instead of refusing: for work a loop of
 * other requests must not keep out (a repair behind viewers' audits). While it waits, claim()
 * refuses everyone else, so it waits for one holder at most; a second waiter is a 409. An
 * aborted `signal` gives up the wait (and the key, if it was handed over meanwhile).
 */
export async function claimAfter(key: string, what: string, advice: string, signal?: AbortSignal): Promise<Claim> {
  const current = held().get(key);
  if (!current) return claim(key, what, advice);
  if (current.next) throw refusal(current, advice);
  return new Promise<Claim>((resolve, reject) => {
    // The client went away: nobody reads the answer, so no internal error is logged for it.
    const gaveUp = () => conflict(`The request went away while ${what[0].toLowerCase()}${what.slice(1)} waited to run.`);
    const onAbort = () => {
      if (current.next === waiter) current.next = undefined;
      reject(gaveUp());
    };
    const waiter = {
      what,
      take: () => {
        signal?.removeEventListener("abort", onAbort);
        const c = take(key, { what, since: new Date().toISOString() });
        if (signal?.aborted) {
          c.release();
          reject(gaveUp());
        } else resolve(c);
      },
    };
    if (signal?.aborted) return reject(gaveUp());
    current.next = waiter;
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What holds `key` now and what waits for it, if anything (for tests and status lines). */
export function holder(key: string): { what: string; since: string; next: string | null } | undefined {
  const h = held().get(key);
  return h && { what: h.what, since: h.since, next: h.next?.what ?? null };
}

/** Runs `work` under a claim of `key`, released when it settles (see claim). */
export async function oneAtATime<T>(key: string, what: string, advice: string, work: () => Promise<T>): Promise<T> {
  return underClaim(claim(key, what, advice), work);
}

async function underClaim<T>(c: Claim, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    c.release();
  }
}

/**
 * A response body, opened once `c` is held, that holds it until it is read to its end, fails or
 * is cancelled (a download's work runs as it is read).
 */
export function heldWhileRead(c: Claim, open: () => ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = open().getReader();
  } catch (err) {
    c.release();
    throw err;
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        c.release();
        controller.close();
      } catch (err) {
        c.release();
        controller.error(err);
      }
    },
    async cancel(reason) {
      try {
        await reader.cancel(reason);
      } finally {
        c.release();
      }
    },
  });
}

const AFTER_IT = "One runs at a time; try again when it finishes.";

/**
 * Querying every chunk with its own vector takes minutes on a large index (docs/performance.md,
 * 'HNSW settings'): the audit that does it (`?reachability=1`) runs one at a time across the app,
 * and a request meanwhile is a 409 naming the one running.
 */
export const oneReachabilityAudit = <T>(work: () => Promise<T>) =>
  oneAtATime("reachability-audit", "A reachability audit (every chunk queried with its own vector)", AFTER_IT, work);

/**
 * The repair with reachability holds the same key, but waits for a running audit instead of
 * refusing (audits are refused while it waits): viewers auditing in a loop cannot keep it out.
 */
export async function reachabilityRepair<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const c = await claimAfter(
    "reachability-audit",
    "A repair with reachability",
    "One repair runs at a time; try again when it finishes.",
    signal,
  );
  return underClaim(c, work);
}

/** The audit without reachability lists every vector of every collection: one at a time too, apart from the one above. */
export const oneAudit = <T>(work: () => Promise<T>) => oneAtATime("audit", "An audit (every vector listed)", AFTER_IT, work);

/** The gaps list asks every gap again (up to 200 searches): one download at a time across the app. */
export const oneGapsList = <T>(agentId: number, work: () => Promise<T>) =>
  oneAtATime("gaps", `A list of agent ${agentId}'s gaps (each asked again)`, AFTER_IT, work);

/** An agent export reads every chunk and vector as it streams: one at a time across the app, held until its file is read. */
export const claimExport = (agentId: number) => claim("export", `An export of agent ${agentId}`, AFTER_IT);
