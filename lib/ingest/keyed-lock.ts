import "server-only";
import { ingestState } from "./state";

// Tails of the waiting lines, per key, shared by every module instance of this process.
const tails = () => ingestState().keyedLocks;

async function acquire(key: string): Promise<() => void> {
  const previous = tails().get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  tails().set(key, tail);
  await previous;
  return () => {
    release();
    if (tails().get(key) === tail) tails().delete(key);
  };
}

/**
 * Runs `fn` once no other holder of any of `keys` is running, first come first served.
 * Keys are taken in sorted order, so two callers sharing several keys never wait on each other.
 */
export async function withKeys<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
  const releases: (() => void)[] = [];
  try {
    for (const key of [...new Set(keys)].sort()) releases.push(await acquire(key));
    return await fn();
  } finally {
    for (const release of releases.reverse()) release();
  }
}
