import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BroadcastChannel } from "node:worker_threads";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { buildDocxWithDocument, buildHtmlExport, buildPdf, formattedDocumentXml, rejection } from "../../test/fixtures/extract/builders";
import { ExtractOutOfMemory, ExtractPool, ExtractTimeout, workerFile, type ExtractJob } from "./pool";
import { closeExtractPool, extractPool } from "./state";
import { extractText } from "./index";

// How long the main thread stalls and how long requests wait while a large PDF is read are
// figures, printed by `node --import tsx scripts/bench/extract-limits.ts`.

// About 1,500 pages of text: seconds of pdf.js work, which used to hold up every request.
const bigPdf = buildPdf(Array.from({ length: 1_500 }, (_, i) => `Page ${i + 1}: refunds are issued within fourteen days of the request.`));

/**
 * A stand-in for worker.mjs that behaves as its job says, and names its thread in every answer.
 * It takes a job as the real worker does (saying `started`, which starts the job's deadline). A PDF
 * job never ends (a reader stuck in a loop); a job with a `gate` holds its thread until the test
 * opens the gate; any other job is answered at once. Before it is stuck or holds, it says so on the
 * "kb-stand-in" channel, with its thread's ids. `boot` runs first, before the worker takes jobs.
 */
const standInSource = (boot = "") => `
import fs from "node:fs";
import { BroadcastChannel, parentPort, threadId } from "node:worker_threads";
const say = (event) => {
  const channel = new BroadcastChannel("kb-stand-in");
  channel.postMessage({ event, threadId, tid: fs.readlinkSync("/proc/thread-self").split("/").pop() });
  channel.close();
};
${boot}
parentPort.on("message", (job) => {
  if (job.kind === "pdf") {
    say("stuck");
    parentPort.postMessage({ started: true });
    for (;;);
  }
  if (job.gate) {
    say("holding");
    parentPort.postMessage({ started: true });
    Atomics.wait(job.gate, 0, 0);
  } else parentPort.postMessage({ started: true });
  parentPort.postMessage({ ok: true, text: String(threadId) });
});
`;
interface StandInNews {
  event: "stuck" | "holding" | "booting";
  threadId: number;
  /** The thread's id in the system, as in /proc/self/task. */
  tid: string;
}
/** The next thing a stand-in worker says; close() when done listening. */
function listenToStandIns() {
  const channel = new BroadcastChannel("kb-stand-in");
  const next = new Promise<StandInNews>((resolve) => (channel.onmessage = (e) => resolve((e as { data: StandInNews }).data)));
  return { next, close: () => channel.close() };
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-extract-pool-"));
const standIn = path.join(tmp, "stand-in-worker.mjs");
fs.writeFileSync(standIn, standInSource());
// Boots only when the test says "go" on the "kb-stand-in-go" channel.
const slowStandIn = path.join(tmp, "slow-stand-in-worker.mjs");
fs.writeFileSync(
  slowStandIn,
  standInSource(`const go = new BroadcastChannel("kb-stand-in-go");
const gone = new Promise((resolve) => (go.onmessage = resolve));
say("booting");
await gone;
go.close();`),
);
// Never boots: stuck in a loop before it could take a job.
const deadStandIn = path.join(tmp, "dead-stand-in-worker.mjs");
fs.writeFileSync(deadStandIn, standInSource(`say("booting");\nfor (;;);`));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const answer = (text: string): ExtractJob => ({ kind: "html", html: text, maxChars: 100 });

describe("extraction off the main thread", () => {
  it("hands a large PDF to the worker pool, which reads all of it", async () => {
    const run = vi.spyOn(extractPool(), "run");
    const { text } = await extractText("big.pdf", bigPdf);
    expect(text).toContain("Page 1500: refunds");
    expect(run.mock.calls.map(([job]) => job.kind)).toEqual(["pdf"]);
  });

  it("stops a file past its deadline, ends the thread that was reading it, and reads the next file", async () => {
    // The shared pool's next job goes to a pool of stand-ins, where a PDF is never done.
    const stuck = new ExtractPool({ size: 1, memoryMb: 64, idleMs: 1_000, workerFile: standIn });
    vi.spyOn(extractPool(), "run").mockImplementationOnce((job, timeoutMs) => stuck.run(job, timeoutMs));
    const standIns = listenToStandIns();
    try {
      const message = await rejection(extractText("slow.pdf", bigPdf, { timeoutMs: 200 }), "extract_timeout");
      expect(message).toBe(
        '"slow.pdf" took too long to read (over 0.2 seconds, the EXTRACT_TIMEOUT_MS limit). ' +
          "It may be damaged or unusually complex; split it into smaller files or save it again and retry.",
      );
      // A reader left running would keep a core busy: its thread is gone from this process.
      const { event, threadId, tid } = await standIns.next;
      expect(event).toBe("stuck");
      await expect.poll(() => fs.existsSync(`/proc/self/task/${tid}`), { timeout: 60_000 }).toBe(false);
      // The pool goes on with a fresh worker.
      expect(await stuck.run(answer("next"), 60_000)).toEqual({ ok: true, text: expect.not.stringMatching(`^${threadId}$`) });
    } finally {
      standIns.close();
      await stuck.close();
    }
    await expect(extractText("next.pdf", buildPdf(["Next file"]))).resolves.toMatchObject({ text: "Next file" });
  });

  it("is one pool for every copy of the extraction modules (Next loads them more than once), and each copy knows its failures", async () => {
    const pool = extractPool();
    vi.resetModules();
    const copy = { ...(await import("./pool")), ...(await import("./state")) };
    expect(copy.ExtractTimeout).not.toBe(ExtractTimeout);
    expect(copy.extractPool()).toBe(pool);
    expect(new copy.ExtractTimeout()).toBeInstanceOf(ExtractTimeout);
    expect(new copy.ExtractOutOfMemory()).not.toBeInstanceOf(ExtractTimeout);
  });

  it("is closed as a whole (its workers stopped), and the next file is read by a new pool", async () => {
    const pool = extractPool();
    await expect(extractText("one.pdf", buildPdf(["One file"]))).resolves.toMatchObject({ text: "One file" });
    const close = vi.spyOn(pool, "close");
    await closeExtractPool();
    expect(close).toHaveBeenCalledTimes(1);
    expect(extractPool()).not.toBe(pool);
    await expect(extractText("two.pdf", buildPdf(["Two files"]))).resolves.toMatchObject({ text: "Two files" });
  });
});

describe("ExtractPool", () => {
  it("turns a worker running out of memory into a rejection, then carries on", async () => {
    const pool = new ExtractPool({ size: 1, memoryMb: 32, idleMs: 1_000, workerFile: workerFile() });
    // 400,000 paragraphs: their text, held as it is built, takes more than the worker's 32 MB.
    const html = Array.from({ length: 400_000 }, (_, i) => `<p>Refund ${i} within 14 days</p>`).join("");
    try {
      await expect(pool.run({ kind: "html", html, maxChars: 1e9 }, 30_000)).rejects.toBeInstanceOf(ExtractOutOfMemory);
      await expect(pool.run({ kind: "html", html: "<p>still here</p>", maxChars: 100 }, 60_000)).resolves.toEqual({
        ok: true,
        text: "still here",
      });
    } finally {
      await pool.close();
    }
  });

  it("reads a 20 MB HTML export with a worker heap of 96 MB: the page is read as a stream, not held as a tree", async () => {
    // A tree of the whole page took about 30 bytes per byte of HTML: 600 MB for this file.
    const { html, articles } = buildHtmlExport(20 * 1024 * 1024);
    const pool = new ExtractPool({ size: 1, memoryMb: 96, idleMs: 1_000, workerFile: workerFile() });
    try {
      const reply = await pool.run({ kind: "html", html, maxChars: 1e9 }, 60_000);
      expect(reply.ok).toBe(true);
      const text = reply.ok && "text" in reply ? reply.text : "";
      expect(text.startsWith("## Article 0\n\nCustomers on plan 0 turn on feature 0 under Settings;")).toBe(true);
      expect(
        text.endsWith(
          `## Article ${articles - 1}\n\nCustomers on plan ${(articles - 1) % 97} turn on feature ${(articles - 1) % 31} under Settings; the change reaches every device within ${((articles - 1) % 13) + 1} minutes.`,
        ),
      ).toBe(true);
      expect(text.match(/^## Article \d+$/gm)).toHaveLength(articles);
      for (const chrome of ["Help centre", "Related", "Privacy"]) expect(text).not.toContain(chrome);
    } finally {
      await pool.close();
    }
  });

  it("reads a formatted Word document of 1.5 million characters with a worker heap of 64 MB", async () => {
    // A tree of the document XML took about 50 bytes per byte: 280 MB for these 5 MB of XML.
    const paragraphs = Array.from({ length: 12_000 }, (_, i) =>
      `Paragraph ${i}: refunds are issued within 14 days of the request. `.repeat(2),
    );
    const bytes = await buildDocxWithDocument(formattedDocumentXml(paragraphs));
    const pool = new ExtractPool({ size: 1, memoryMb: 64, idleMs: 1_000, workerFile: workerFile() });
    try {
      const reply = await pool.run({ kind: "docx", bytes, maxChars: 1e9, maxXmlBytes: 1e9 }, 60_000);
      expect(reply).toEqual({ ok: true, text: paragraphs.map((p) => `${p}\n\n`).join("") });
    } finally {
      await pool.close();
    }
  });

  it("refuses a page larger than half the worker's heap before copying it there, and the process carries on", async () => {
    // Copied onto a heap too small for it, the page would stop this whole process, not only the worker.
    const pool = new ExtractPool({ size: 1, memoryMb: 32, idleMs: 1_000, workerFile: workerFile() });
    try {
      const latin = `<p>${"refunds within fourteen days ".repeat(2_000_000)}</p>`;
      await expect(pool.run({ kind: "html", html: latin, maxChars: 1e9 }, 30_000)).rejects.toBeInstanceOf(ExtractOutOfMemory);
      // 9 million characters outside Latin-1 take two bytes each: 18 MB, over half of 32 MB.
      const wide = `<p>${"返金は十四日以内".repeat(1_100_000)}</p>`;
      await expect(pool.run({ kind: "html", html: wide, maxChars: 1e9 }, 30_000)).rejects.toBeInstanceOf(ExtractOutOfMemory);
      await expect(pool.run({ kind: "html", html: "<p>still here</p>", maxChars: 100 }, 60_000)).resolves.toEqual({
        ok: true,
        text: "still here",
      });
    } finally {
      await pool.close();
    }
  });

  it("counts a job's deadline from when its worker takes it, not from when the worker was started", async () => {
    // The pool's clock is the test's: only the worker's start and the test decide what happens.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pool = new ExtractPool({ size: 1, memoryMb: 64, idleMs: 1_000, workerFile: slowStandIn, startMs: 60_000 });
    const standIns = listenToStandIns();
    const go = new BroadcastChannel("kb-stand-in-go");
    try {
      const answered = expect(pool.run(answer("late"), 200)).resolves.toEqual({ ok: true, text: expect.stringMatching(/^\d+$/) });
      expect((await standIns.next).event).toBe("booting");
      // A cold worker on a busy machine: ten seconds go by before it takes the job.
      vi.advanceTimersByTime(10_000);
      go.postMessage("go");
      await answered;
    } finally {
      go.close();
      standIns.close();
      await pool.close();
      vi.useRealTimers();
    }
  });

  it("stops a job whose worker never takes it, and ends that worker's thread", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    // The pool's clock is the test's: a busy machine may take longer than the wait to boot the
    // worker, which must have said it is booting before the wait runs out.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pool = new ExtractPool({ size: 1, memoryMb: 64, idleMs: 1_000, workerFile: deadStandIn, startMs: 100 });
    const standIns = listenToStandIns();
    try {
      // Bounded by the job's deadline too, so a timeout's message stays true.
      const stopped = expect(pool.run(answer("never"), 200)).rejects.toBeInstanceOf(ExtractTimeout);
      const { event, tid } = await standIns.next;
      expect(event).toBe("booting");
      vi.advanceTimersByTime(200);
      await stopped;
      vi.useRealTimers();
      expect(logged).toHaveBeenCalledWith("text extraction worker did not take its job within 200 ms; it was stopped");
      await expect.poll(() => fs.existsSync(`/proc/self/task/${tid}`), { timeout: 60_000 }).toBe(false);
    } finally {
      standIns.close();
      await pool.close();
    }
  });

  it("answers a job on another worker while one holds its thread", async () => {
    const pool = new ExtractPool({ size: 2, memoryMb: 64, idleMs: 1_000, workerFile: standIn });
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const openGate = () => (Atomics.store(gate, 0, 1), Atomics.notify(gate, 0));
    const standIns = listenToStandIns();
    try {
      const held = pool.run({ ...answer("held"), gate } as unknown as ExtractJob, 60_000);
      // The first worker has the job and is blocked on the gate.
      expect((await standIns.next).event).toBe("holding");
      const other = await pool.run(answer("other"), 60_000);
      openGate();
      const [first, second] = [await held, other].map((reply) => (reply.ok && "text" in reply ? reply.text : !reply.ok && reply.failure));
      expect(first).toMatch(/^\d+$/);
      expect(second).toMatch(/^\d+$/);
      expect(second).not.toBe(first);
    } finally {
      openGate();
      standIns.close();
      await pool.close();
    }
  });

  it("queues jobs beyond its size and runs them all", async () => {
    const pool = new ExtractPool({ size: 1, memoryMb: 256, idleMs: 1_000, workerFile: workerFile() });
    try {
      const replies = await Promise.all([1, 2, 3].map((n) => pool.run({ kind: "html", html: `<p>job ${n}</p>`, maxChars: 100 }, 60_000)));
      expect(replies).toEqual([1, 2, 3].map((n) => ({ ok: true, text: `job ${n}` })));
    } finally {
      await pool.close();
    }
  });
});

describe("where the worker is found", () => {
  it("beside its module, whatever the working directory", () => {
    const beside = path.join(import.meta.dirname, "worker.mjs");
    expect(workerFile()).toBe(beside);
    const cwd = process.cwd();
    try {
      process.chdir(os.tmpdir());
      expect(workerFile()).toBe(beside);
    } finally {
      process.chdir(cwd);
    }
  });
});
