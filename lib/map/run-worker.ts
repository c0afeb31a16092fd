import "server-only";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** Heap the map's worker may use: the layout of a 5,000-vector sample and 100,000 reduced vectors take a few hundred MB. */
const WORKER_MEMORY_MB = 1536;

/**
 * The worker is plain ESM beside this module, found from this module's own URL as the extract
 * worker is (lib/extract/pool.ts says why): loaded from the sources, its node_modules resolve.
 */
export const mapWorkerFile = () => path.join(path.dirname(fileURLToPath(import.meta.url)), "worker.mjs");

type Reply =
  | { type: "fitted" | "taken" }
  | { type: "progress"; phase: string; fraction: number }
  | { type: "done"; chunks: Float32Array; questions: Float32Array }
  | { type: "failed"; message: string };

/** One projection in a worker thread of its own (lib/map/worker.mjs), driven a message at a time. */
export class ProjectionWorker {
  readonly #worker: Worker;
  #waiting: { type: string; resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  #failure: Error | null = null;

  constructor(
    private readonly onProgress: (phase: string, fraction: number) => void,
    // A value the bundler cannot follow: given `new Worker(<a path it can work out>)`, Turbopack
    // bundles the file as a worker of its own, where its plain imports are not found.
    private readonly file = mapWorkerFile(),
  ) {
    // The parent's flags (a TypeScript loader, inspector, heap size) mean nothing to the worker.
    this.#worker = new Worker(this.file, { resourceLimits: { maxOldGenerationSizeMb: WORKER_MEMORY_MB }, execArgv: [] });
    // A map being computed must not keep a script or a test's process alive.
    this.#worker.unref();
    this.#worker.on("message", (r: Reply) => {
      if (r.type === "progress") return this.onProgress(r.phase, r.fraction);
      if (r.type === "failed") return this.#fail(new Error(r.message));
      const w = this.#waiting;
      if (w && w.type === r.type) {
        this.#waiting = null;
        w.resolve(r);
      }
    });
    this.#worker.on("error", (err) => this.#fail(err));
    this.#worker.on("exit", () => this.#fail(new Error("The map's worker stopped before it finished.")));
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    const w = this.#waiting;
    this.#waiting = null;
    w?.reject(err);
  }

  #post(msg: object, transfer: ArrayBuffer[] = []): void {
    if (this.#failure) throw this.#failure;
    this.#worker.postMessage(msg, transfer);
  }

  #await(type: string): Promise<Reply> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => (this.#waiting = { type, resolve, reject }));
  }

  start(options: { seed: number; dim: number; total: number; sample?: number }): void {
    this.#post({ type: "start", options });
  }

  /** Rows go over as a copy whose buffer is transferred: the caller's (a view of a SQLite row) stays intact. */
  #rows(type: string, vectors: Float32Array, rows: number): void {
    const copy = vectors.slice();
    this.#post({ type, vectors: copy, rows }, [copy.buffer]);
  }

  sample(vectors: Float32Array, rows: number): void {
    this.#rows("sample", vectors, rows);
  }

  async fit(): Promise<void> {
    this.#post({ type: "fit" });
    await this.#await("fitted");
  }

  /** Resolves once the worker took them: the reader never runs ahead of the worker by more than a batch. */
  async rows(vectors: Float32Array, rows: number): Promise<void> {
    const taken = this.#await("taken");
    this.#rows("rows", vectors, rows);
    await taken;
  }

  questions(vectors: Float32Array, rows: number): void {
    this.#rows("questions", vectors, rows);
  }

  async layout(): Promise<{ chunks: Float32Array; questions: Float32Array }> {
    const done = this.#await("done");
    this.#post({ type: "layout" });
    const r = (await done) as Extract<Reply, { type: "done" }>;
    return { chunks: r.chunks, questions: r.questions };
  }

  async stop(): Promise<void> {
    this.#failure ??= new Error("The map's worker was stopped.");
    await this.#worker.terminate();
  }
}
