import "server-only";
import { layerState } from "./process-state";

/** What holds a one-at-a-time key (lib/core/one-at-a-time.ts). */
export interface Held {
  /** What runs, as the refusal names it: "Evaluation run 12 of this agent". */
  what: string;
  since: string;
  /** Work that claimed the key to run next (claimAfter), handed the key when this releases it. */
  next?: { what: string; take: () => void };
}

/** The bottom layer's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface CoreState {
  /**
   * What holds each one-at-a-time key (an evaluation, a generation, a replay, a reachability
   * audit, a sweep) and since when (lib/core/one-at-a-time.ts, for lib/evaluation,
   * lib/questions/replay.ts and app/api/audit): the work can run after the request that claimed
   * it answered, and another request for it is refused meanwhile, whichever bundle it came through.
   */
  oneAtATime: Map<string, Held>;
}

/** The bottom layer's values, made on first use in this process. */
export const coreState = () => layerState("core", (): CoreState => ({ oneAtATime: new Map() }));
