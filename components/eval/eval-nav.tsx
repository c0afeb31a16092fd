"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export function EvalNav({ agentId, pairCount }: { agentId: number; pairCount: number }) {
  const pathname = usePathname();
  const base = `/agents/${agentId}/eval`;
  const links = [
    { href: base, label: "Dashboard", active: pathname === base },
    { href: `${base}/pairs`, label: `Labeled pairs (${pairCount})`, active: pathname.startsWith(`${base}/pairs`) },
  ];
  return (
    <nav aria-label="Recall evaluation" className="flex gap-2">
      {links.map((l) => (
        <Link
          key={l.href}
          href={l.href}
          aria-current={l.active ? "page" : undefined}
          className={`rounded-full px-3 py-1 text-sm ${l.active ? "bg-slate-800 text-white" : "bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-100"}`}
        >
          {l.label}
        </Link>
      ))}
    </nav>
  );
}
