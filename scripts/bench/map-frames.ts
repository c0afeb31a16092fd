// `npm run bench:map-frames [-- --points 100000]`: the map page's frame time in Chromium (the
// Debian package, headless): the page's own drawing code (components/map/draw.ts, bundled as it
// is) draws `points` chunks of 40 clusters and 200 questions on a 640 px canvas at the device
// pixel ratio 2 (dots sized as coverage sizes them: most the smallest), once per animation frame, panned a little each frame as a drag pans it.
// Prints the draw time and the interval between frames (p50, p95, max) over 120 frames.
import { parseArgs } from "node:util";
import path from "node:path";
import { build } from "esbuild";
import { chromium } from "@playwright/test";

const { values } = parseArgs({ options: { points: { type: "string", default: "100000" } } });
const POINTS = Number(values.points);
const root = path.resolve(import.meta.dirname, "../..");

const bundle = await build({
  entryPoints: [path.join(root, "components/map/draw.ts")],
  bundle: true,
  format: "iife",
  globalName: "mapDraw",
  write: false,
});
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 2, viewport: { width: 800, height: 800 } });
  await page.setContent('<canvas id="map" style="width:640px;height:640px"></canvas>');
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  // The function below is sent as its source, which the TypeScript loader names with a helper the page lacks.
  await page.addScriptTag({ content: "window.__name = (f) => f;" });
  const figures = await page.evaluate(async (n) => {
    const draw = (window as unknown as { mapDraw: typeof import("../../components/map/draw") }).mapDraw;
    // A fixed generator: the same points on every run.
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
    const total = n + 200;
    const points = { x: new Float32Array(total), y: new Float32Array(total), category: new Int32Array(total), size: new Uint8Array(total) };
    const centres = Array.from({ length: 40 }, () => [random() * 1.6 - 0.8, random() * 1.6 - 0.8]);
    for (let i = 0; i < total; i++) {
      const question = i >= n;
      const [cx, cy] = centres[i % 40];
      points.x[i] = cx + (random() - 0.5) * 0.3;
      points.y[i] = cy + (random() - 0.5) * 0.3;
      points.category[i] = question ? 20 : i % 20;
      // Most chunks are retrieved rarely or never (the smallest dot), a few often.
      points.size[i] = i % 10 < 7 ? 1 : 2 + (i % 3);
    }
    const colors = Array.from({ length: 21 }, (_, i) => `#${(0x204080 + i * 0x0a0b05).toString(16).slice(0, 6).padStart(6, "0")}`);
    const markers = colors.map((_, i) => (i === 20 ? ("diamond" as const) : ("dot" as const)));
    const canvas = document.getElementById("map") as HTMLCanvasElement;
    const draws: number[] = [];
    const intervals: number[] = [];
    let last = 0;
    for (let frame = 0; frame < 130; frame++) {
      const at = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
      const t0 = performance.now();
      draw.drawPoints(canvas, 640, 2, draw.transformOf({ zoom: 1.5, panX: -frame, panY: frame / 2 }, 640), points, colors, markers);
      const took = performance.now() - t0;
      // The first frames warm the code up.
      if (frame >= 10) {
        draws.push(took);
        intervals.push(at - last);
      }
      last = at;
    }
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
    return { draw: [q(draws, 50), q(draws, 95), Math.max(...draws)], frame: [q(intervals, 50), q(intervals, 95), Math.max(...intervals)] };
  }, POINTS);
  const f = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" / ");
  console.log(`map_points: ${POINTS} chunks and 200 questions, 640 px canvas at device pixel ratio 2`);
  console.log(`map_draw_ms p50 / p95 / max: ${f(figures.draw)}`);
  console.log(`map_frame_interval_ms p50 / p95 / max: ${f(figures.frame)}`);
} finally {
  await browser.close();
}
