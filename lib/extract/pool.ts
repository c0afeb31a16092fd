import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * What the worker (worker.mjs) is asked to read; limits travel with each job. An `ocr` job reads
 * one image, or one page of a PDF rendered as an image (ocr-reader.mjs).
 */
export type ExtractJob =
  | { kind: "pdf"; bytes: Uint8Array; maxChars: number; maxPages: number; maxStreamBytes: number; maxScanned?: number; maxPixels?: number }
  | { kind: "docx"; bytes: Uint8Array; maxChars: number; maxXmlBytes: number }
  | { kind: "html"; html: string; maxChars: number }
  | { kind: "ocr"; source: "image"; bytes: Uint8Array; languages: string }
  | { kind: "ocr"; source: "pdf"; bytes: Uint8Array; languages: string; page: number; maxPixels: number; maxStreamBytes: number };

/**
 * A PDF's answer is its pages' text layers, in order, and the pages to read by OCR (with
 * `maxScanned`); an OCR job's, its text and mean confidence (0-100).
 */
export type ExtractReply =
  | { ok: true; text: string; confidence?: number }
  | { ok: true; pages: string[]; scanned: number[] }
  | { ok: false; failure: "limit"; code: LimitCode; pages?: number; retire: true }
  | { ok: false; failure: "damaged_zip" }
  | { ok: false; failure: "parse"; name: string; message: string; retire?: true }
  | { ok: false; failure: "ocr_languages"; missing: string[] };

/** A limit a reader stopped at (limit-exceeded.mjs). */
export type LimitCode = "too_much_text" | "too_many_pages" | "too_many_scanned_pages";

/** What a worker says when it takes a job, before it reads: the job's deadline starts here. */
export interface ExtractStarted {
  started: true;
}

const FAILURE = Symbol.for("kb-inspector.extract-failure");

/**
 * A failure of the pool's, told apart by a mark rather than by its class: the pool is
 * process-wide (lib/extract/state.ts), so the copy of this module that made it, and threw, may
 * not be the caller's, whose classes are others.
 */
function poolFailure(kind: string) {
  return class extends Error {
    readonly [FAILURE] = kind;
    static [Symbol.hasInstance](value: unknown): boolean {
      return typeof value === "object" && value !== null && (value as { [FAILURE]?: string })[FAILURE] === kind;
    }
  };
}

/** The job ran past its deadline; its worker was terminated. */
export class ExtractTimeout extends poolFailure("timeout") {}

/** The job took its worker past the heap limit; the worker is gone, the server is not. */
export class ExtractOutOfMemory extends poolFailure("out-of-memory") {}

/** The worker failed while reading the job's file (an error its reader did not catch). */
export class ExtractCrashed extends poolFailure("crashed") {}

export interface PoolOptions {
  size: number;
  /** V8 heap limit of each worker. */
  memoryMb: number;
  /** An idle worker is stopped after this long, giving its memory back. */
  idleMs: number;
  workerFile: string;
  /**
   * How long a worker may take to boot and take its job (a cold worker on a busy machine can take
   * seconds); a job whose worker has not taken it by then, nor within its own deadline, is stopped.
   */
  startMs?: number;
}

interface Pending {
  job: ExtractJob;
  timeoutMs: number;
  resolve(reply: ExtractReply): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  pending?: Pending;
  timer?: NodeJS.Timeout;
}

/**
 * Worker threads that parse uploads off the event loop, one job per worker at a time and
 * the rest queued. A job past its deadline, or past the heap limit, costs its worker: the
 * worker is terminated and a fresh one takes the next job.
 */
export class ExtractPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];

  constructor(private readonly options: PoolOptions) {}

  /** The deadline counts from the moment a worker takes the job, not from the queue nor the worker's start. */
  run(job: ExtractJob, timeoutMs: number): Promise<ExtractReply> {
    // A page is copied onto the worker's heap before its reader runs; one that does not fit there
    // would stop the whole process rather than the worker. Half the heap leaves room to read it.
    if (job.kind === "html" && stringHeapBytes(job.html) > (this.options.memoryMb * 1024 * 1024) / 2) {
      return Promise.reject(
        new ExtractOutOfMemory(`A page of ${job.html.length} characters does not fit a worker of ${this.options.memoryMb} MB.`),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every worker; jobs still queued or running fail. */
  async close(): Promise<void> {
    for (const pending of this.queue.splice(0)) pending.reject(new Error("The extraction pool was closed."));
    await Promise.all([...this.slots].map((slot) => this.retire(slot, new Error("The extraction pool was closed."))));
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = [...this.slots].find((s) => !s.pending);
      if (!slot && this.slots.size < this.options.size) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(this.options.workerFile, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
      // The parent's flags (a TypeScript loader, inspector, heap size) mean nothing to the worker.
      execArgv: [],
    });
    const slot: Slot = { worker };
    worker.on("message", (reply: ExtractReply | ExtractStarted) => ("started" in reply ? this.begin(slot) : this.finish(slot, reply)));
    worker.on("error", (err: Error & { code?: string }) => {
      if (err.code === "ERR_WORKER_OUT_OF_MEMORY") return void this.retire(slot, new ExtractOutOfMemory(err.message));
      // Logged here: the user only learns that the file could not be read.
      console.error("text extraction worker failed:", err);
      void this.retire(slot, new ExtractCrashed(err.message, { cause: err }));
    });
    worker.on("exit", () => void this.retire(slot, new ExtractCrashed("The extraction worker stopped unexpectedly.")));
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    clearTimeout(slot.timer);
    slot.pending = pending;
    slot.worker.ref();
    // Bounds a worker that never takes the job; as long as the deadline at least, which a timeout's message names.
    const startMs = Math.max(pending.timeoutMs, this.options.startMs ?? START_MS);
    slot.timer = setTimeout(() => {
      console.error(`text extraction worker did not take its job within ${startMs} ms; it was stopped`);
      void this.retire(slot, new ExtractTimeout());
    }, startMs);
    const { job } = pending;
    try {
      // Bytes go over as a fresh copy whose buffer is transferred, so the caller's stay intact
      // (a Buffer's slice() would share, and transfer, the caller's memory).
      if (job.kind === "html") slot.worker.postMessage(job);
      else {
        const bytes = new Uint8Array(job.bytes);
        slot.worker.postMessage({ ...job, bytes }, [bytes.buffer]);
      }
    } catch (err) {
      this.finishWith(slot, () => pending.reject(err as Error));
    }
  }

  /** The worker has the job in hand: its deadline counts from now, so a slow start costs it nothing. */
  private begin(slot: Slot): void {
    const pending = slot.pending;
    if (!pending) return;
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => void this.retire(slot, new ExtractTimeout()), pending.timeoutMs);
  }

  private finish(slot: Slot, reply: ExtractReply): void {
    const pending = slot.pending;
    if (!pending) return;
    if ("retire" in reply) {
      slot.pending = undefined;
      pending.resolve(reply);
      void this.retire(slot);
    } else {
      this.finishWith(slot, () => pending.resolve(reply));
    }
  }

  private finishWith(slot: Slot, settle: () => void): void {
    clearTimeout(slot.timer);
    slot.pending = undefined;
    // An idle worker must not keep a script or test process alive.
    slot.worker.unref();
    slot.timer = setTimeout(() => void this.retire(slot), this.options.idleMs).unref();
    settle();
    this.dispatch();
  }

  /** Takes a worker out of the pool for good, failing its job if it had one. */
  private async retire(slot: Slot, reason?: Error): Promise<void> {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.timer);
    const pending = slot.pending;
    slot.pending = undefined;
    if (pending) pending.reject(reason ?? new Error("The extraction worker stopped."));
    this.dispatch();
    await slot.worker.terminate();
  }
}

/** What a string takes on a heap: a byte per character while every character is Latin-1, else two. */
function stringHeapBytes(text: string): number {
  return /[^\u0000-\u00ff]/.test(text) ? text.length * 2 : text.length;
}

// How long a worker may take to boot and take its job, unless the pool is given its own (startMs).
const START_MS = 60_000;

/**
 * The worker is plain ESM beside this module (Next bundles lib/ into .next/, where a worker file
 * would lose its imports; loaded from the sources, node_modules resolve). Found from this
 * module's own URL, which the build keeps as the source file's, not from the working directory,
 * so the app serves uploads whichever directory it was started from.
 */
export function workerFile(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), "worker.mjs");
}
