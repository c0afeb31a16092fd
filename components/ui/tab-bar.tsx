"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export interface Tab {
  href: string;
  label: string;
  /** Paths under which this tab is the current one besides its own; `exact` when only its own path counts. */
  activeUnder?: string[];
  exact?: boolean;
}

const LOOK = {
  underline: {
    nav: "flex gap-1 border-b border-slate-200",
    link: "-mb-px border-b-2 px-4 py-2 text-sm",
    active: "border-blue-700 font-medium text-blue-800",
    idle: "border-transparent text-slate-600 hover:text-slate-900",
  },
  pills: {
    nav: "flex gap-2",
    link: "rounded-full px-3 py-1 text-sm",
    active: "bg-slate-800 text-white",
    idle: "bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-100",
  },
};

const under = (pathname: string, path: string) => pathname === path || pathname.startsWith(`${path}/`);

function isActive(tab: Tab, pathname: string) {
  if (pathname === tab.href) return true;
  if (tab.activeUnder?.some((p) => under(pathname, p))) return true;
  return !tab.exact && under(pathname, tab.href);
}

/** Links between the sections of a page; the current one is marked with aria-current. */
export function TabBar({ label, tabs, look = "underline" }: { label: string; tabs: Tab[]; look?: keyof typeof LOOK }) {
  const pathname = usePathname();
  const style = LOOK[look];
  return (
    <nav aria-label={label} className={style.nav}>
      {tabs.map((t) => {
        const active = isActive(t, pathname ?? "");
        return (
          <Link key={t.href} href={t.href} aria-current={active ? "page" : undefined} className={`${style.link} ${active ? style.active : style.idle}`}>
            {t.label}
          </Link>
        );
      })}
    </nav>
  );
}
