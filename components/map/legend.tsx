import type { Category } from "./categories";

/** The map's legend: each colour with what it stands for and how many points have it. */
export function MapLegend({ categories }: { categories: Category[] }) {
  return (
    <section aria-labelledby="map-legend-heading">
      <h2 id="map-legend-heading" className="text-sm font-medium">
        Legend
      </h2>
      <ul className="mt-1 space-y-1 text-sm">
        {categories
          .filter((c) => c.count > 0)
          .map((c) => (
            <li key={`${c.kind}:${c.label}`} className="flex items-center gap-2">
              <span
                aria-hidden
                className={
                  c.kind === "chunk" ? "inline-block h-2.5 w-2.5 rounded-full" : "inline-block h-3.5 w-3.5 rounded-full ring-2 ring-white"
                }
                style={{ backgroundColor: c.color }}
              />
              <span className="flex-1 [overflow-wrap:anywhere]">{c.label}</span>
              <span className="text-slate-500">{c.count}</span>
            </li>
          ))}
      </ul>
    </section>
  );
}
