// Slows password guessing: per client and overall, failed sign-ins past a free allowance lock
// further attempts for a time that doubles with each failure. Kept in memory; a restart forgets.

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
export const OVERALL: ThrottleRule = { free: 30, maxWaitMs: 60_000, forgetAfterMs: 15 * 60_000 };
const EVERYONE = "\0everyone";

export class LoginThrottle {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly perClient = PER_CLIENT,
    private readonly overall = OVERALL,
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
    const wait = Math.max(this.waitOf(client, now), this.waitOf(EVERYONE, now));
    if (wait > 0) return wait;
    this.fail(client, this.perClient, now);
    this.fail(EVERYONE, this.overall, now);
    return 0;
  }

  /** The password was right: the client's count starts again (the overall one takes the success off). */
  succeeded(client: string): void {
    this.entries.delete(client);
    const all = this.entries.get(EVERYONE);
    if (all && all.failures > 0) all.failures -= 1;
  }

  private waitOf(key: string, now: number): number {
    const e = this.entries.get(key);
    return e ? Math.max(0, e.lockedUntil - now) : 0;
  }

  private fail(key: string, rule: ThrottleRule, now: number) {
    const e = this.entries.get(key) ?? { failures: 0, lastFailure: now, lockedUntil: 0 };
    e.failures += 1;
    e.lastFailure = now;
    const over = e.failures - rule.free;
    if (over > 0) e.lockedUntil = now + Math.min(rule.maxWaitMs, 1000 * 2 ** (over - 1));
    this.entries.set(key, e);
  }

  private prune(now: number) {
    for (const [key, e] of this.entries) {
      const rule = key === EVERYONE ? this.overall : this.perClient;
      if (now - e.lastFailure > rule.forgetAfterMs && e.lockedUntil <= now) this.entries.delete(key);
    }
  }
}
