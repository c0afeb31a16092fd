"use client";

import Link from "next/link";
import { useActionState } from "react";
import { useFormStatus } from "react-dom";
import { removeInDraftAction, type CollisionFixState } from "@/lib/actions/collisions";
import type { CollisionSide } from "@/lib/collisions/collisions";

const OUTLINE = "rounded border border-slate-300 px-3 py-1.5 text-sm text-slate-800 hover:bg-slate-100 disabled:opacity-60";

/** Both sides' buttons: the one clicked says it is working, and neither can be clicked meanwhile. */
function Buttons({ sides }: { sides: CollisionSide[] }) {
  const { pending, data } = useFormStatus();
  const clicked = pending ? data?.get("side") : null;
  const choices = sides.flatMap((s) => [
    { value: `switch_off:${s.document_id}`, label: `Switch off ${s.filename} in a draft` },
    { value: `remove:${s.document_id}`, label: `Remove ${s.filename} in a draft` },
  ]);
  return (
    <>
      {choices.map((c) => (
        <button key={c.value} type="submit" name="side" value={c.value} disabled={pending} className={OUTLINE}>
          {clicked === c.value ? "Staging…" : c.label}
        </button>
      ))}
    </>
  );
}

/**
 * The fix of one collision: switching either side off, or removing it, staged in a new draft. Once staged, the
 * buttons give way to the draft's link, so one click makes one draft.
 */
export function RemoveButtons({ agentId, a, b }: { agentId: number; a: CollisionSide; b: CollisionSide }) {
  const [state, action] = useActionState<CollisionFixState, FormData>(
    removeInDraftAction.bind(null, agentId, [a.document_id, b.document_id]),
    {},
  );
  const statusId = `collision-${a.document_id}-${b.document_id}-status`;
  return (
    <form action={action} aria-describedby={statusId} className="space-y-2">
      {state.draftId === undefined && (
        <div className="flex flex-wrap gap-2">
          <Buttons sides={[a, b]} />
        </div>
      )}
      <div id={statusId} aria-live="polite" className="text-sm">
        {state.ok && state.draftId !== undefined && (
          <p className="text-green-800">
            {state.message}{" "}
            <Link className="text-blue-700 underline" href={`/agents/${agentId}/drafts#draft-${state.draftId}`}>
              Open draft {state.draftId} to preview its impact and publish it
            </Link>
          </p>
        )}
        {state.ok === false && <p className="text-red-700">{state.message}</p>}
      </div>
    </form>
  );
}
