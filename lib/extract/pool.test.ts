import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractText } from "./index";
import { ExtractOutOfMemory, ExtractPool, workerFile } from "./pool";
import { buildDocxWithDocument, buildHtmlExport, buildPdf, formattedDocumentXml, rejection } from "./test-fixtures";

// About 1,500 pages of text: seconds of pdf.js work, which used to hold up every request.
const bigPdf = buildPdf(Array.from({ length: 1_500 }, (_, i) => `Page ${i + 1}: refunds are issued within fourteen days of the request.`));

// A client on its own thread, so its timings show how long this thread kept requests waiting.
const CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
let stop = false;
parentPort.on("message", () => { stop = true; });
(async () => {
  const latencies = [];
  while (!stop) {
    const started = Date.now();
    await fetch(workerData.url).then((r) => r.text());
    latencies.push(Date.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  parentPort.postMessage(latencies);
})();
`;

describe("extraction off the main thread", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("keeps answering requests and timers on time while a large PDF is read", async () => {
    const client = new Worker(CLIENT, { eval: true, workerData: { url } });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const { text } = await extractText("big.pdf", bigPdf);
    delay.disable();
    client.postMessage("stop");
    const latencies: number[] = await new Promise((resolve) => client.once("message", resolve));
    await client.terminate();

    expect(text).toContain("Page 1500: refunds");
    expect(latencies.length).toBeGreaterThan(3);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(delay.max / 1e6).toBeLessThan(200);
  });

  it("stops a file past its deadline, frees the CPU and reads the next file", async () => {
    const started = performance.now();
    const message = await rejection(extractText("slow.pdf", bigPdf, { timeoutMs: 200 }), "extract_timeout");
    expect(message).toBe(
      '"slow.pdf" took too long to read (over 0.2 seconds, the EXTRACT_TIMEOUT_MS limit). ' +
        "It may be damaged or unusually complex; split it into smaller files or save it again and retry.",
    );
    expect(performance.now() - started).toBeLessThan(2_000);

    // A parse left running would keep a core busy.
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(250);

    await expect(extractText("next.pdf", buildPdf(["Next file"]))).resolves.toMatchObject({ text: "Next file" });
  });
});

describe("ExtractPool", () => {
  it("turns a worker running out of memory into a rejection, then carries on", async () => {
    const pool = new ExtractPool({ size: 1, memoryMb: 32, idleMs: 1_000, workerFile: workerFile() });
    // 400,000 paragraphs: their text, held as it is built, takes more than the worker's 32 MB.
    const html = Array.from({ length: 400_000 }, (_, i) => `<p>Refund ${i} within 14 days</p>`).join("");
    try {
      await expect(pool.run({ kind: "html", html, maxChars: 1e9 }, 30_000)).rejects.toBeInstanceOf(ExtractOutOfMemory);
      await expect(pool.run({ kind: "html", html: "<p>still here</p>", maxChars: 100 }, 5_000)).resolves.toEqual({
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
      const text = reply.ok ? reply.text : "";
      expect(text.startsWith("## Article 0\n\nCustomers on plan 0 turn on feature 0 under Settings;")).toBe(true);
      expect(text.endsWith(`## Article ${articles - 1}\n\nCustomers on plan ${(articles - 1) % 97} turn on feature ${(articles - 1) % 31} under Settings; the change reaches every device within ${((articles - 1) % 13) + 1} minutes.`)).toBe(true);
      expect(text.match(/^## Article \d+$/gm)).toHaveLength(articles);
      for (const chrome of ["Help centre", "Related", "Privacy"]) expect(text).not.toContain(chrome);
    } finally {
      await pool.close();
    }
  });

  it("reads a formatted Word document of 1.5 million characters with a worker heap of 64 MB", async () => {
    // A tree of the document XML took about 50 bytes per byte: 280 MB for these 5 MB of XML.
    const paragraphs = Array.from({ length: 12_000 }, (_, i) => `Paragraph ${i}: refunds are issued within 14 days of the request. `.repeat(2));
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
      await expect(pool.run({ kind: "html", html: "<p>still here</p>", maxChars: 100 }, 5_000)).resolves.toEqual({ ok: true, text: "still here" });
    } finally {
      await pool.close();
    }
  });

  it("queues jobs beyond its size and runs them all", async () => {
    const pool = new ExtractPool({ size: 1, memoryMb: 256, idleMs: 1_000, workerFile: workerFile() });
    try {
      const replies = await Promise.all(
        [1, 2, 3].map((n) => pool.run({ kind: "html", html: `<p>job ${n}</p>`, maxChars: 100 }, 5_000)),
      );
      expect(replies).toEqual([1, 2, 3].map((n) => ({ ok: true, text: `job ${n}` })));
    } finally {
      await pool.close();
    }
  });
});
