import "server-only";
import { layerState } from "../core/process-state";

/** A map being computed for an agent (lib/map/compute.ts). */
export interface MapJob {
  /** What it is doing now, and how far the whole computation is, 0 to 1. */
  phase: string;
  fraction: number;
  done: Promise<void>;
}

/** The map layer's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface MapState {
  /**
   * The map being computed per agent id (lib/map/view.ts): a computation takes seconds to
   * minutes, outlives the request that started it, and each later request reads its progress
   * instead of starting another.
   */
  jobs: Map<number, MapJob>;
  /**
   * The last failed computation per agent id, with the stamp it was for and when (lib/map/view.ts):
   * the same content is not computed again on every poll, only once FAILURE_RETRY_MS has passed.
   */
  failures: Map<number, { stamp: string; message: string; at: number }>;
}

export const mapState = () => layerState("map", (): MapState => ({ jobs: new Map(), failures: new Map() }));
