// Slows password guessing: a client's failed sign-ins past a free allowance lock its further
// attempts for a time that doubles with each failure. Kept in memory; a restart forgets.
// Only the client that failed waits: a count shared by everyone would let one anonymous
// client keep every admin out. The client is its socket address (lib/auth/peer.ts), which
// it cannot choose, so it cannot escape its own count either.

export interface ThrottleRule {
  /** Failures allowed before any wait. */
  free: number;
  /** Longest wait, in milliseconds. */
  maxWaitMs: number;
  /** Failures older than this are forgotten, in milliseconds. */
  forgetAfterMs: number;
}

interface Entry {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export const PER_CLIENT: ThrottleRule = { free: 5, maxWaitMs: 15 * 60_000, forgetAfterMs: 60 * 60_000 };

export class LoginThrottle {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly perClient = PER_CLIENT,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Starts an attempt: answers how many milliseconds the client must still wait (0: go ahead).
   * An attempt that goes ahead counts as a failure until `succeeded` is called, so parallel
   * guesses are counted before their answers arrive.
   */
  begin(client: string): number {
    const now = this.clock();
    this.prune(now);
    const wait = this.waitOf(client, now);
    if (wait > 0) return wait;
    this.fail(client, now);
    return 0;
  }

  /** The password was right: the client's count starts again. */
  succeeded(client: string): void {
    this.entries.delete(client);
  }

  private waitOf(key: string, now: number): number {
    const e = this.entries.get(key);
    return e ? Math.max(0, e.lockedUntil - now) : 0;
  }

  private fail(key: string, now: number) {
    const rule = this.perClient;
    const e = this.entries.get(key) ?? { failures: 0, lastFailure: now, lockedUntil: 0 };
    e.failures += 1;
    e.lastFailure = now;
    const over = e.failures - rule.free;
    if (over > 0) e.lockedUntil = now + Math.min(rule.maxWaitMs, 1000 * 2 ** (over - 1));
    this.entries.set(key, e);
  }

  private prune(now: number) {
    for (const [key, e] of this.entries) {
      if (now - e.lastFailure > this.perClient.forgetAfterMs && e.lockedUntil <= now) this.entries.delete(key);
    }
  }
}
