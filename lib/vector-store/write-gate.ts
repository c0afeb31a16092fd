import "server-only";
import type { Collection } from "chromadb";
import { vectorStoreState, type Mirror } from "./state";

/**
 * Every change to a collection's vectors (add, delete) passes here, so that a rebuild of the
 * index (lib/index-upkeep/rebuild.ts) can build a copy while uploads and removals go on: while
 * a collection is mirrored, each change is made to it and then, the same way, to its copy.
 * Nothing waits for the rebuild; a change the copy missed fails the rebuild, not the change.
 */
const mirrors = () => vectorStoreState().writeMirrors;

/** Runs one change to a collection's vectors (pass the one that holds them now: `live(c)`), and to its copy while one is built. */
export async function vectorWrite<T>(target: Collection, write: (c: Collection) => Promise<T>): Promise<T> {
  const result = await write(target);
  const mirror = mirrors().get(target.id);
  if (mirror && !mirror.missed) {
    try {
      await write(mirror.copy);
    } catch (err) {
      mirror.missed = err instanceof Error ? err.message : String(err);
    }
  }
  return result;
}

/**
 * From now on, changes to `collection` are made to `copy` too. `missed` says what the copy did
 * not take so far, if anything; `end` stops mirroring and says the same.
 */
export function mirrorWrites(collection: Collection, copy: Collection): { missed: () => string | null; end: () => string | null } {
  const mirror: Mirror = { copy, missed: null };
  mirrors().set(collection.id, mirror);
  return {
    missed: () => mirror.missed,
    end: () => {
      if (mirrors().get(collection.id) === mirror) mirrors().delete(collection.id);
      return mirror.missed;
    },
  };
}

/** Whether changes to this collection are being mirrored into a copy (a rebuild is copying it). */
export const isMirrored = (collection: Collection): boolean => mirrors().has(collection.id);
