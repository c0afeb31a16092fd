/** The points the canvas draws: coordinates in [-1, 1] and each point's category (an index into colors and markers). */
export interface ScatterPoints {
  x: Float32Array;
  y: Float32Array;
  category: Int32Array;
  /** Per point: its dot's half side in CSS pixels (absent: DOT). */
  size?: Uint8Array;
}

/** Zoom and pan of the canvas: a point's place at zoom 1 is scaled by `zoom`, then moved by the pan (CSS pixels). */
export interface View {
  zoom: number;
  panX: number;
  panY: number;
}

/** Where map coordinates land on the canvas, in CSS pixels from its top left: `px = sx * x + tx`, `py = sy * y + ty`. */
export interface Transform {
  sx: number;
  tx: number;
  sy: number;
  ty: number;
}

/** Room around the map's edge, in CSS pixels, so the outermost dots are drawn whole. */
const PAD = 12;
/** Half the side of a chunk's dot and of a question's diamond, in CSS pixels. */
const DOT = 2;
const DIAMOND = 6;
/** Cells per side of the grid points are looked up in. */
const CELLS = 64;

export function transformOf(view: View, side: number): Transform {
  const half = (side - 2 * PAD) / 2;
  return {
    sx: view.zoom * half,
    tx: view.zoom * (PAD + half) + view.panX,
    sy: -view.zoom * half,
    ty: view.zoom * (PAD + half) + view.panY,
  };
}

const images = new WeakMap<HTMLCanvasElement, ImageData>();

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/**
 * Draws the points: chunks as dots written into the canvas's pixels (one pass, no path per
 * point), then questions as diamonds with a white edge over them.
 */
export function drawPoints(
  canvas: HTMLCanvasElement,
  side: number,
  dpr: number,
  t: Transform,
  points: ScatterPoints,
  colors: string[],
  markers: ("dot" | "diamond")[],
): void {
  const size = Math.round(side * dpr);
  if (canvas.width !== size) canvas.width = canvas.height = size;
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  // One pixel buffer per canvas and size, cleared for each frame rather than allocated again.
  let image = images.get(canvas);
  if (!image || image.width !== size) images.set(canvas, (image = ctx.createImageData(size, size)));
  const px = new Uint32Array(image.data.buffer);
  px.fill(0);
  // Pixels are little-endian RGBA in a Uint32Array on every browser the app supports.
  const packed = colors.map((c) => {
    const [r, g, b] = rgb(c);
    return (255 << 24) | (b << 16) | (g << 8) | r;
  });
  const n = points.x.length;
  for (let i = 0; i < n; i++) {
    const c = points.category[i];
    if (markers[c] !== "dot") continue;
    const r = Math.max(1, Math.round((points.size?.[i] ?? DOT) * dpr));
    const cx = Math.round((t.sx * points.x[i] + t.tx) * dpr);
    const cy = Math.round((t.sy * points.y[i] + t.ty) * dpr);
    if (cx < -r || cy < -r || cx >= size + r || cy >= size + r) continue;
    const colour = packed[c];
    for (let y = Math.max(0, cy - r); y <= Math.min(size - 1, cy + r); y++)
      for (let x = Math.max(0, cx - r); x <= Math.min(size - 1, cx + r); x++) px[y * size + x] = colour;
  }
  ctx.putImageData(image, 0, 0);
  ctx.save();
  ctx.scale(dpr, dpr);
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = "#ffffff";
  for (let i = 0; i < n; i++) {
    const c = points.category[i];
    if (markers[c] !== "diamond") continue;
    const x = t.sx * points.x[i] + t.tx;
    const y = t.sy * points.y[i] + t.ty;
    ctx.beginPath();
    ctx.moveTo(x, y - DIAMOND);
    ctx.lineTo(x + DIAMOND, y);
    ctx.lineTo(x, y + DIAMOND);
    ctx.lineTo(x - DIAMOND, y);
    ctx.closePath();
    ctx.fillStyle = colors[c];
    ctx.fill();
    ctx.stroke();
  }
  ctx.restore();
}

/** The points' indexes by cell of a grid over [-1, 1]²: the pointer's neighbours are found without a pass over every point. */
export function pointGrid(points: ScatterPoints): Map<number, number[]> {
  const grid = new Map<number, number[]>();
  for (let i = 0; i < points.x.length; i++) {
    const key = cellOf(points.x[i], points.y[i]);
    const cell = grid.get(key);
    if (cell) cell.push(i);
    else grid.set(key, [i]);
  }
  return grid;
}

const cell = (v: number) => Math.min(CELLS - 1, Math.max(0, Math.floor(((v + 1) / 2) * CELLS)));
const cellOf = (x: number, y: number) => cell(y) * CELLS + cell(x);

/** The point under the pointer (within `hit` CSS pixels, a question's diamond first, then the nearest), or null. */
export function nearestPoint(
  grid: Map<number, number[]>,
  points: ScatterPoints,
  markers: ("dot" | "diamond")[],
  t: Transform,
  at: { x: number; y: number },
  hit: number,
): number | null {
  const x = (at.x - t.tx) / t.sx;
  const y = (at.y - t.ty) / t.sy;
  const reach = (hit + DIAMOND) / Math.abs(t.sx);
  let best: number | null = null;
  let bestScore = Infinity;
  for (let cy = cell(y - reach); cy <= cell(y + reach); cy++)
    for (let cx = cell(x - reach); cx <= cell(x + reach); cx++)
      for (const i of grid.get(cy * CELLS + cx) ?? []) {
        const d = Math.hypot(t.sx * points.x[i] + t.tx - at.x, t.sy * points.y[i] + t.ty - at.y);
        const diamond = markers[points.category[i]] === "diamond";
        if (d > (diamond ? DIAMOND + 2 : hit)) continue;
        // A question drawn over dots is what the pointer is on.
        const score = diamond ? d - 1000 : d;
        if (score < bestScore) [best, bestScore] = [i, score];
      }
  return best;
}
