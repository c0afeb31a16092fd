// `npm run bench:ocr [-- --pages N]` (node --import tsx scripts/bench/ocr.ts): what reading by OCR
// costs, as `key: value` lines. Generated pages (drawn with a system font, as the tests draw them):
// screenshots of a settings panel uploaded as PNG, full pages uploaded as PNG images, and a PDF of
// scanned pages (150 dpi JPEGs, no text layer) that the app renders at 300 dpi; each read through
// extractText, in the extraction worker pool, one page after another. Memory is the process's
// peak RSS while OCR ran (the worker thread, its WebAssembly engine and the page images), above
// what it held before; the tests (lib/extract/ocr.test.ts) show what is read, these say how fast.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { createCanvas } from "@napi-rs/canvas";
import { extractText, type Extracted } from "../../lib/extract/index";
import { closeExtractPool } from "../../lib/extract/state";
import {
  FONT_FAMILY,
  SETTINGS_SCREEN,
  buildImagePdf,
  drawScannedPage,
  drawScreenshot,
  wordRecall,
} from "../../test/fixtures/extract/images";

const { values } = parseArgs({ options: { pages: { type: "string", default: "5" } } });
const PAGES = Number(values.pages);

// Every limit given, so lib/env.mjs is never read.
const LIMITS = {
  maxTextChars: 5_000_000,
  maxPdfPages: 2_000,
  timeoutMs: 60_000,
  maxImagePixels: 40_000_000,
  ocrLanguages: "eng",
  ocrMinConfidence: 40,
  ocrMaxPages: 50,
};

const MB = 1024 * 1024;
const print = (key: string, value: number) => console.log(`${key}: ${Number(value.toFixed(2))}`);

const WORDS = (
  "account admin approve archive billing cancel card change charge contact credit customer daily days delete device download email " +
  "enable export invoice language limit login monthly notification order owner password payment period plan policy price profile " +
  "refund renew report request reset restore retention role schedule seat security settings share single storage subscription " +
  "summary support team ticket timezone transfer trial update upgrade user verify webhook weekly workspace"
).split(" ");

/** `count` lines of about `words` words, a different run of the word list for each page. */
function lines(page: number, count: number, words: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    Array.from({ length: words }, (_, j) => WORDS[(page * 31 + i * 7 + j * 3) % WORDS.length]).join(" "),
  );
}

/** Peak RSS of the process since the last reset, from the kernel; the reset starts a new peak. */
const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"))![1]) * 1024;
const resetPeak = () => fs.writeFileSync("/proc/self/clear_refs", "5");

async function timed(name: string, bytes: Uint8Array) {
  const started = performance.now();
  const read: Extracted = await extractText(name, bytes, LIMITS);
  return { seconds: (performance.now() - started) / 1000, read };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function drawPhotoOfNotice(text: string[]) {
  const canvas = createCanvas(8000, 5000);
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, 8000, 5000);
  ctx.fillStyle = "#111111";
  ctx.font = `96px "${FONT_FAMILY}"`;
  text.forEach((line, i) => ctx.fillText(line, 400, 800 + i * 160));
  return { png: canvas.toBuffer("image/png"), text: text.join("\n") };
}

async function main() {
  // Drawn before anything is measured.
  const shots = Array.from({ length: PAGES }, (_, p) => ({ lines: [SETTINGS_SCREEN[0]!, ...lines(p, 5, 7)] }));
  const shotImages = shots.map((s) => drawScreenshot(s.lines).png);
  // 40 lines on a page of 1,240 × 1,712 pixels: an A4 page of running text at 150 dpi.
  const fullPages = Array.from({ length: PAGES }, (_, p) => lines(p + 100, 40, 9));
  const fullImages = fullPages.map((page) => drawScannedPage(page).png);
  const scans = Array.from({ length: PAGES }, (_, p) => lines(p + 200, 40, 9));
  const pdf = buildImagePdf(
    scans.map((page) => {
      const { jpeg, width, height } = drawScannedPage(page);
      return { jpeg, width, height };
    }),
  );
  // 8,000 × 5,000: a photo of a notice at the pixel limit, a few lines of large text on white.
  const atLimit = drawPhotoOfNotice(lines(300, 6, 6));
  console.log(`pages: ${PAGES}`);
  print("scanned_pdf_mb", pdf.byteLength / MB);

  const before = process.memoryUsage.rss();
  resetPeak();

  // The first image also starts the worker and loads the engine and its English data.
  const first = await timed("first.png", shotImages[0]!);
  const rest = [];
  for (let p = 1; p < PAGES; p++) rest.push(await timed(`shot-${p}.png`, shotImages[p]!));
  print("engine_start_s", first.seconds - mean(rest.map((r) => r.seconds)));
  print("screenshot_s_per_image", mean(rest.map((r) => r.seconds)));
  print("screenshot_word_recall", mean([first, ...rest].map((r, p) => wordRecall(shots[p]!.lines.join("\n"), r.read.text))));

  const full = [];
  for (let p = 0; p < PAGES; p++) full.push(await timed(`page-${p}.png`, fullImages[p]!));
  print("full_page_image_s_per_page", mean(full.map((r) => r.seconds)));
  print("full_page_image_word_recall", mean(full.map((r, p) => wordRecall(fullPages[p]!.join("\n"), r.read.text))));
  const confidences = full.map((r) => (r.read.ocr && "image" in r.read.ocr ? r.read.ocr.image.confidence : 0));
  print("full_page_image_confidence_mean", mean(confidences));

  const scanned = await timed("scans.pdf", pdf);
  print("scanned_pdf_s_per_page", scanned.seconds / PAGES);
  print("scanned_pdf_word_recall", wordRecall(scans.flat().join("\n"), scanned.read.text));
  const pages = scanned.read.ocr && "pages" in scanned.read.ocr ? scanned.read.ocr.pages : [];
  print("scanned_pdf_pages_read_by_ocr", pages.length);
  print("peak_rss_growth_mb_pages", (peakRss() - before) / MB);

  // The largest image accepted (40 megapixels): what one file can make the worker hold.
  resetPeak();
  const beforeLimit = process.memoryUsage.rss();
  const started = performance.now();
  const outcome = await extractText("notice.png", atLimit.png, LIMITS).then(
    (read) => `read (word recall ${wordRecall(atLimit.text, read.text)})`,
    (err: { code?: string }) => err.code ?? String(err),
  );
  console.log(`image_at_limit_outcome: ${outcome}`);
  print("image_at_limit_s", (performance.now() - started) / 1000);
  print("peak_rss_growth_mb_image_at_limit", (peakRss() - beforeLimit) / MB);

  await closeExtractPool();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
