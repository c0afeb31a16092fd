import Link from "next/link";
import { COLLISION_KINDS, type CollisionKind } from "@/lib/collisions/schema";
import { KIND_LABEL } from "./collision-card";

const LINK = "shrink-0 whitespace-nowrap rounded-full px-3 py-1 text-sm";
const ACTIVE = "bg-slate-800 text-white";
const IDLE = "bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-100";

/** Links to all collisions or to one kind (`?kind=`), each with how many were found; the current one is marked. */
export function KindFilter(props: {
  agentId: number;
  kind: CollisionKind | undefined;
  counts: Record<CollisionKind, number>;
  all: number;
}) {
  const base = `/agents/${props.agentId}/collisions`;
  const links = [
    { href: base, label: "All", count: props.all, current: props.kind === undefined },
    ...COLLISION_KINDS.map((k) => ({ href: `${base}?kind=${k}`, label: KIND_LABEL[k], count: props.counts[k], current: props.kind === k })),
  ];
  return (
    <nav aria-label="Kinds of collision" className="flex gap-2 overflow-x-auto p-1">
      {links.map((l) => (
        <Link key={l.href} href={l.href} aria-current={l.current ? "page" : undefined} className={`${LINK} ${l.current ? ACTIVE : IDLE}`}>
          {l.label} ({l.count})
        </Link>
      ))}
    </nav>
  );
}
