import fs from "node:fs";
import os from "node:os";
import { layerState } from "../core/process-state";
import { ExtractPool, workerFile } from "./pool";

/** Text extraction's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface ExtractState {
  /**
   * The worker threads that parse uploads, started on first use (null until then, and after
   * closeExtractPool): every upload, source sync and preview of the process shares them, so the
   * number of workers and their memory stay bounded for the whole process.
   */
  pool: ExtractPool | null;
}

function createExtractState(): ExtractState {
  return { pool: null };
}

const extractState = () => layerState("extract", createExtractState);

// Each worker may use up to MEMORY_MB, so a large machine still runs only a few at once.
const MAX_WORKERS = 4;
// HTML and .docx are read as streams (a 20 MB page in a small share of it); pdf.js holds its
// parsed objects and fonts, the most of any reader for 2,000 pages of dense text (measured in
// docs/performance.md, 'A 20 MB upload'). The rest is headroom for heavy PDFs.
const MEMORY_MB = 1024;
const IDLE_MS = 60_000;

/** The process-wide pool, started on first use. */
export function extractPool(): ExtractPool {
  const state = extractState();
  if (!state.pool) {
    const file = workerFile();
    if (!fs.existsSync(file)) {
      throw new Error(`The text extraction worker is missing at ${file}; start the app from its own directory.`);
    }
    state.pool = new ExtractPool({
      size: Math.min(MAX_WORKERS, Math.max(1, os.availableParallelism() - 1)),
      memoryMb: MEMORY_MB,
      idleMs: IDLE_MS,
      workerFile: file,
    });
  }
  return state.pool;
}

/** Stops the process-wide pool's workers (jobs still queued or running fail); the next use starts a new pool. */
export async function closeExtractPool(): Promise<void> {
  const state = extractState();
  const pool = state.pool;
  state.pool = null;
  await pool?.close();
}
