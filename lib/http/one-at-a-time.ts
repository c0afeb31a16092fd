import "server-only";
import { processState } from "../core/process-state";
import { conflict } from "../core/errors";

/** Slow work a client can start that runs one at a time per key in this process. */
interface Held {
  /** What runs, as the refusal names it: "Evaluation run 12 of this agent". */
  what: string;
  since: string;
}

// One map per process (Next may load this module more than once).
const held = () => processState("oneAtATime", () => new Map<string, Held>());

export interface Claim {
  /** What runs under the claim now (the next run of a chain), started now. */
  rename(what: string): void;
  /** Frees the key; a no-op once done. */
  release(): void;
}

/**
 * Claims `key`, or throws 409 conflict naming what holds it and since when, with `advice` on what
 * to do. Synchronous, so two requests started together cannot both get it.
 */
export function claim(key: string, what: string, advice: string): Claim {
  const current = held().get(key);
  if (current) throw conflict(`${current.what} is already running (started ${current.since}). ${advice}`);
  const entry: Held = { what, since: new Date().toISOString() };
  held().set(key, entry);
  return {
    rename(next) {
      entry.what = next;
      entry.since = new Date().toISOString();
    },
    release() {
      if (held().get(key) === entry) held().delete(key);
    },
  };
}

/** Runs `work` under a claim of `key`, released when it settles (see claim). */
export async function oneAtATime<T>(key: string, what: string, advice: string, work: () => Promise<T>): Promise<T> {
  const c = claim(key, what, advice);
  try {
    return await work();
  } finally {
    c.release();
  }
}

/**
 * Querying every chunk with its own vector takes minutes on a large index (docs/performance.md,
 * 'HNSW settings'): the audit and the repair that do it (`?reachability=1`) run one at a time
 * across the app, and a request meanwhile is a 409 naming the one running.
 */
export const oneReachabilityAudit = <T>(work: () => Promise<T>) =>
  oneAtATime("reachability-audit", "A reachability audit (every chunk queried with its own vector)", "One runs at a time; wait for it to finish and ask again.", work);
