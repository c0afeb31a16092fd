// `npm run bench:extract` (node --expose-gc --import tsx scripts/bench/extract-limits.ts): what refusing a decompression
// bomb and reading a large PDF cost this process, as figures. The tests (lib/extract/limits.test.ts,
// pool.test.ts) show that bombs are refused and PDFs read in a worker; how much memory that takes
// and how long the main thread stalls meanwhile depend on the machine and its load, so they are
// printed here, one `key: value` line each, instead of asserted. For comparison, the tests used
// to require: RSS growth under 100 MB per bomb, main-thread stalls under 200 ms, requests answered
// within 1 s while the PDF is read, and under 250 ms of CPU in the 500 ms after a timeout.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { buildDocxBomb, buildPdfBomb } from "../../test/fixtures/extract/bombs";
import { extractText } from "../../lib/extract/index";
import { buildPdf } from "../../test/fixtures/extract/builders";

const MB = 1024 * 1024;
// Every limit given, so lib/env.mjs is never read.
const LIMITS = { maxTextChars: 5_000_000, maxPdfPages: 2_000, timeoutMs: 60_000 };

const gc = (globalThis as { gc?: () => void }).gc;
const print = (key: string, value: number) => console.log(`${key}: ${Number(value.toFixed(1))}`);

/** Peak RSS growth (worker threads included), the longest main-thread stall and the time `work` took. */
async function measure(work: () => Promise<unknown>) {
  gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const outcome = await work().then(
    () => "read",
    (err: unknown) => (err as { code?: string }).code ?? String(err),
  );
  const ms = performance.now() - started;
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { outcome, rssGrowthMb: (peak - before) / MB, maxLoopDelayMs: delay.max / 1e6, ms };
}

async function bombs() {
  // Built before measuring: only the refusal is measured.
  const cases = [
    { key: "docx_bomb_400mb", file: "big.docx", bytes: buildDocxBomb(400), maxTextChars: 5_000_000 },
    { key: "docx_liar_400mb", file: "liar.docx", bytes: buildDocxBomb(400, 4096), maxTextChars: 1_000_000 },
    { key: "pdf_bomb_250mb", file: "bomb.pdf", bytes: buildPdfBomb(250), maxTextChars: 200_000 },
  ];
  for (const { key, file, bytes, maxTextChars } of cases) {
    const m = await measure(() => extractText(file, bytes, { ...LIMITS, maxTextChars }));
    console.log(`${key}_outcome: ${m.outcome}`);
    print(`${key}_rss_growth_mb`, m.rssGrowthMb);
    print(`${key}_main_thread_max_delay_ms`, m.maxLoopDelayMs);
    print(`${key}_ms`, m.ms);
  }
}

// A client on its own thread, so its timings show how long the main thread kept requests waiting.
const CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
let stop = false;
parentPort.on("message", () => { stop = true; });
(async () => {
  const latencies = [];
  while (!stop) {
    const started = performance.now();
    await fetch(workerData.url).then((r) => r.text());
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  parentPort.postMessage(latencies);
})();
`;

async function bigPdf() {
  const bytes = buildPdf(Array.from({ length: 1_500 }, (_, i) => `Page ${i + 1}: refunds are issued within fourteen days of the request.`));
  const server = http.createServer((_, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new Worker(CLIENT, { eval: true, workerData: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` } });
  try {
    const m = await measure(() => extractText("big.pdf", bytes, LIMITS));
    client.postMessage("stop");
    const latencies: number[] = await new Promise((resolve) => client.once("message", resolve));
    latencies.sort((a, b) => a - b);
    console.log(`pdf_1500_pages_outcome: ${m.outcome}`);
    print("pdf_1500_pages_ms", m.ms);
    print("pdf_1500_pages_main_thread_max_delay_ms", m.maxLoopDelayMs);
    print("pdf_1500_pages_requests_answered", latencies.length);
    print("pdf_1500_pages_request_p95_ms", latencies[Math.floor(latencies.length * 0.95)] ?? Number.NaN);
    print("pdf_1500_pages_request_max_ms", latencies.at(-1) ?? Number.NaN);

    // A read past its deadline: its worker is terminated, so the process goes back to idle.
    const timedOut = await measure(() => extractText("slow.pdf", bytes, { ...LIMITS, timeoutMs: 200 }));
    console.log(`pdf_timeout_outcome: ${timedOut.outcome}`);
    print("pdf_timeout_ms", timedOut.ms);
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const used = process.cpuUsage(cpu);
    print("pdf_timeout_cpu_ms_in_next_500_ms", (used.user + used.system) / 1000);
  } finally {
    await client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function main() {
  if (!gc) console.log("# run with --expose-gc for steadier memory figures");
  await bombs();
  await bigPdf();
  // The extraction pool's idle workers are unref'd; nothing else keeps the process.
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
