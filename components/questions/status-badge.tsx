import type { QuestionView } from "@/lib/questions/list";

export type QuestionStatus = QuestionView["status"];

const STYLE: Record<QuestionStatus, { label: string; className: string }> = {
  open: { label: "Open", className: "bg-blue-100 text-blue-900" },
  labeled: { label: "Labeled", className: "bg-green-100 text-green-800" },
  unanswerable: { label: "Unanswerable", className: "bg-slate-200 text-slate-800" },
  gap: { label: "Gap", className: "bg-amber-100 text-amber-900" },
  ignored: { label: "Ignored", className: "bg-slate-100 text-slate-600" },
};

export const statusLabel = (status: QuestionStatus) => STYLE[status].label;

/** A question's triage, and for a labeled one the document its pair expects. */
export function StatusBadge({ status, expected }: { status: QuestionStatus; expected: string | null }) {
  const s = STYLE[status];
  return (
    <span className="inline-flex flex-col items-start gap-0.5">
      <span className={`rounded px-2 py-0.5 text-xs font-medium ${s.className}`}>{s.label}</span>
      {status === "labeled" && expected && <span className="text-xs text-slate-600 [overflow-wrap:anywhere]">{expected}</span>}
    </span>
  );
}
