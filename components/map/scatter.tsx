"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { drawPoints, nearestPoint, pointGrid, transformOf, type ScatterPoints, type View } from "./draw";

interface Props {
  points: ScatterPoints;
  colors: string[];
  /** Per category: a chunk's dot, or a question's diamond drawn over the dots. */
  markers: ("dot" | "diamond")[];
  label: string;
  onHover: (index: number | null) => void;
  onPick: (index: number) => void;
}

/** The largest side of the square canvas, in CSS pixels. */
const MAX_SIDE = 640;
/** How far the pointer may be from a point that it is over, in CSS pixels. */
const HIT_PX = 6;

/**
 * The scatter plot of the map on a 2-D canvas: chunks are written straight into the canvas's
 * pixels in one pass and questions drawn over them (a WebGL library was refused by the app's
 * Content-Security-Policy: docs/performance.md, "The map"). Drag pans, the wheel zooms, the pointer over a point
 * reports it, a click picks it. The canvas carries its transform in `data-transform` (see
 * transformOf), kept up to date as it is panned and zoomed, and how many points it drew.
 */
export function ScatterCanvas({ points, colors, markers, label, onHover, onPick }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [side, setSide] = useState(0);
  const [view, setView] = useState<View>({ zoom: 1, panX: 0, panY: 0 });
  const hovered = useRef<number | null>(null);
  const drag = useRef<{ x: number; y: number; moved: boolean; view: View } | null>(null);
  const grid = useMemo(() => pointGrid(points), [points]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setSide(Math.min(MAX_SIDE, Math.floor(el.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const el = canvas.current;
    if (!el || side === 0) return;
    const frame = requestAnimationFrame(() => {
      const t = transformOf(view, side);
      el.dataset.transform = JSON.stringify(t);
      drawPoints(el, side, window.devicePixelRatio || 1, t, points, colors, markers);
      el.dataset.points = String(points.x.length);
    });
    return () => cancelAnimationFrame(frame);
  }, [points, colors, markers, view, side]);

  useEffect(() => {
    // The wheel zooms the map rather than the page: a listener that may prevent scrolling.
    const el = canvas.current;
    if (!el) return;
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      const [mx, my] = [e.clientX - r.left, e.clientY - r.top];
      setView((v) => {
        const zoom = Math.min(200, Math.max(0.5, v.zoom * Math.exp(-e.deltaY / 500)));
        const f = zoom / v.zoom;
        return { zoom, panX: mx - f * (mx - v.panX), panY: my - f * (my - v.panY) };
      });
    };
    el.addEventListener("wheel", wheel, { passive: false });
    return () => el.removeEventListener("wheel", wheel);
  }, [side]);

  const at = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const hover = (index: number | null) => {
    if (index === hovered.current) return;
    hovered.current = index;
    onHover(index);
  };

  return (
    <div ref={box} className="w-full">
      <canvas
        ref={canvas}
        role="img"
        aria-label={label}
        style={{ width: side, height: side, touchAction: "none" }}
        className="cursor-crosshair rounded border border-slate-200 bg-white"
        onPointerDown={(e) => {
          e.currentTarget.setPointerCapture(e.pointerId);
          drag.current = { ...at(e), moved: false, view };
        }}
        onPointerMove={(e) => {
          const p = at(e);
          const d = drag.current;
          if (d) {
            if (!d.moved && Math.hypot(p.x - d.x, p.y - d.y) < 3) return;
            d.moved = true;
            setView({ ...d.view, panX: d.view.panX + p.x - d.x, panY: d.view.panY + p.y - d.y });
            return;
          }
          hover(nearestPoint(grid, points, markers, transformOf(view, side), p, HIT_PX));
        }}
        onPointerUp={(e) => {
          const d = drag.current;
          drag.current = null;
          if (d && !d.moved) {
            const picked = nearestPoint(grid, points, markers, transformOf(view, side), at(e), HIT_PX);
            if (picked !== null) onPick(picked);
          }
        }}
        onPointerLeave={() => hover(null)}
      />
    </div>
  );
}
