import "server-only";

/**
 * Every change to a collection's vectors (add, delete) passes this gate, so that a rebuild of
 * the index (lib/vector-store/rebuild.ts) can copy a collection while nothing changes it: the
 * rebuild closes the gate, waits for the writes in flight, copies, and opens it again. Writes
 * that arrive meanwhile wait, then go to the collection that took the old one's place.
 */
interface Gate {
  inFlight: number;
  /** Changes waiting for the gate to open. */
  waiting: number;
  closed: { promise: Promise<void>; open: () => void } | null;
}
const holder = globalThis as unknown as { __kbWriteGate?: Gate };
const gate = () => (holder.__kbWriteGate ??= { inFlight: 0, waiting: 0, closed: null });

/** Runs one change to Chroma's vectors, after the gate opens when a rebuild holds it closed. */
export async function vectorWrite<T>(write: () => Promise<T>): Promise<T> {
  const g = gate();
  while (g.closed) {
    g.waiting = (g.waiting ?? 0) + 1;
    await g.closed.promise; // never rejects
    g.waiting--;
  }
  g.inFlight++;
  try {
    return await write();
  } finally {
    g.inFlight--;
  }
}

/** Whether a rebuild holds the gate closed. */
export const vectorWritesPaused = () => gate().closed !== null;

/** How many changes wait for the gate to open (a test of the rebuild waits for its own to be there). */
export const vectorWritesWaiting = () => gate().waiting ?? 0;

/**
 * Closes the gate and resolves once the writes in flight have ended (each ends within Chroma's
 * deadline); the returned function opens it again.
 */
export async function pauseVectorWrites(): Promise<() => void> {
  const g = gate();
  if (g.closed) throw new Error("vector writes are already paused");
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  g.closed = { promise, open };
  while (g.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  return () => {
    g.closed = null;
    open();
  };
}
