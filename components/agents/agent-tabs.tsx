"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export function AgentTabs({ agentId }: { agentId: number }) {
  const pathname = usePathname();
  const base = `/agents/${agentId}`;
  const tabs = [
    { href: base, label: "Documents", active: pathname === base || pathname.startsWith(`${base}/documents`) },
    { href: `${base}/search`, label: "Search inspector", active: pathname.startsWith(`${base}/search`) },
    { href: `${base}/eval`, label: "Recall", active: pathname.startsWith(`${base}/eval`) },
    { href: `${base}/settings`, label: "Settings", active: pathname.startsWith(`${base}/settings`) },
  ];
  return (
    <nav aria-label="Agent sections" className="flex gap-1 border-b border-slate-200">
      {tabs.map((t) => (
        <Link
          key={t.href}
          href={t.href}
          aria-current={t.active ? "page" : undefined}
          className={`-mb-px border-b-2 px-4 py-2 text-sm ${
            t.active ? "border-blue-700 font-medium text-blue-800" : "border-transparent text-slate-600 hover:text-slate-900"
          }`}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
