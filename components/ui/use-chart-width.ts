"use client";

import { useEffect, useRef, useState } from "react";

/**
 * The width a chart is shown at, clamped to [min, max]: a chart drawn in that many SVG units keeps its
 * labels at their font size in CSS pixels, where a fixed viewBox would shrink them on a phone.
 * `initial` is used for the server render, until the browser has measured the box.
 */
export function useChartWidth<T extends Element>(initial: number, { min = 280, max = 768 } = {}) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.round(Math.min(max, Math.max(min, el.clientWidth))));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [min, max]);
  return [ref, width] as const;
}
