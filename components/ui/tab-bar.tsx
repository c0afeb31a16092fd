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

// The bar scrolls sideways when its tabs do not fit, rather than wrapping onto a second line;
// its padding leaves room for the focus ring, which the scrolling box would otherwise clip.
const LOOK = {
  underline: {
    // The bottom rule is an inset shadow so the current tab's border, painted over it, is not clipped.
    nav: "flex gap-1 overflow-x-auto px-1 pt-1 shadow-[inset_0_-1px_0_var(--color-slate-200)]",
    link: "shrink-0 whitespace-nowrap border-b-2 px-3 py-2 text-sm focus-visible:-outline-offset-2 sm:px-4",
    active: "border-blue-700 font-medium text-blue-800",
    idle: "border-transparent text-slate-600 hover:text-slate-900",
  },
  pills: {
    nav: "flex gap-2 overflow-x-auto p-1",
    link: "shrink-0 whitespace-nowrap rounded-full px-3 py-1 text-sm",
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
          <Link
            key={t.href}
            href={t.href}
            aria-current={active ? "page" : undefined}
            className={`${style.link} ${active ? style.active : style.idle}`}
          >
            {t.label}
          </Link>
        );
      })}
    </nav>
  );
}
