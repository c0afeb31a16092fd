"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { CURVE_KS } from "@/lib/core/metrics";

/** The k the figures are shown at; kept in the URL so a view can be shared. */
export function KPicker({ k }: { k: number }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  return (
    <label className="flex items-center gap-2 text-sm font-medium">
      Show results at k =
      <select
        value={k}
        onChange={(e) => {
          const next = new URLSearchParams(params?.toString());
          next.set("k", e.target.value);
          router.replace(`${pathname}?${next}`, { scroll: false });
        }}
        className="rounded border border-slate-300 px-2 py-1"
      >
        {CURVE_KS.map((i) => (
          <option key={i} value={i}>
            {i}
          </option>
        ))}
      </select>
    </label>
  );
}
