import Link from "next/link";
import type { Collision, CollisionSide } from "@/lib/collisions/collisions";
import type { CollisionKind } from "@/lib/collisions/schema";
import { FileName } from "@/components/ui/file-name";
import { CompetingEvidence, ConflictEvidence, DuplicateEvidence } from "./evidence";
import { RemoveButtons } from "./remove-buttons";

export const KIND_LABEL: Record<CollisionKind, string> = {
  duplicate: "Duplicate",
  conflicting: "Conflicting",
  competing: "Competing",
};

/** What each kind means for the agent's answers, in a sentence. */
export const KIND_EXPLANATION: Record<CollisionKind, string> = {
  duplicate:
    "The same text twice: both are retrieved for the same questions and take a place in the results that another document could use.",
  conflicting:
    "Nearly the same text, but the two disagree on figures, dates or setting names: the agent answers with whichever ranks first.",
  competing:
    "Different texts retrieved for the same questions with neither clearly first: which one answers depends on how a question is worded.",
};

const BADGE: Record<CollisionKind, string> = {
  duplicate: "bg-slate-100 text-slate-800",
  conflicting: "bg-red-100 text-red-900",
  competing: "bg-amber-100 text-amber-900",
};

function DocumentLink({ agentId, side }: { agentId: number; side: CollisionSide }) {
  return (
    <Link className="text-blue-700 underline" href={`/agents/${agentId}/documents/${side.document_id}`}>
      <FileName name={side.filename} />
    </Link>
  );
}

/** One pair of colliding documents: what kind, how strong, the evidence, and (for editors) the fix. */
export function CollisionCard({ agentId, collision: c, canEdit }: { agentId: number; collision: Collision; canEdit: boolean }) {
  return (
    <li>
      <section
        aria-label={`${KIND_LABEL[c.kind]}: ${c.a.filename} and ${c.b.filename}`}
        className="space-y-3 rounded border border-slate-200 bg-white p-4 text-sm"
      >
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <span className={`rounded px-2 py-0.5 text-xs font-medium ${BADGE[c.kind]}`}>{KIND_LABEL[c.kind]}</span>
          <h3 className="font-semibold">
            <DocumentLink agentId={agentId} side={c.a} /> <span className="font-normal text-slate-500">and</span>{" "}
            <DocumentLink agentId={agentId} side={c.b} />
          </h3>
          <span className="text-slate-600">
            strength <span className="font-mono">{c.strength.toFixed(2)}</span>
          </span>
        </div>
        <p className="text-slate-600">{KIND_EXPLANATION[c.kind]}</p>
        {c.kind === "conflicting" && <ConflictEvidence c={c} />}
        {c.kind === "duplicate" && <DuplicateEvidence c={c} />}
        {c.kind === "competing" && <CompetingEvidence c={c} agentId={agentId} />}
        {canEdit && <RemoveButtons agentId={agentId} a={c.a} b={c.b} />}
      </section>
    </li>
  );
}
