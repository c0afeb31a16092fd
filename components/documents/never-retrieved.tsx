import Link from "next/link";
import type { neverRetrieved } from "@/lib/questions/coverage";
import { inspectorHref } from "@/components/eval/inspector-link";
import { DataTable, type Column } from "@/components/ui/data-table";
import { FileName } from "@/components/ui/file-name";
import { plural } from "@/lib/format/plural";

type Never = Awaited<ReturnType<typeof neverRetrieved>>;
type Row = Never["documents"][number];

const columns = (agentId: number): Column<Row>[] => [
  {
    id: "document",
    header: "Document",
    cell: (d) => (
      <Link href={`/agents/${agentId}/documents/${d.id}`} className="font-medium text-blue-700 underline">
        <FileName name={d.filename} />
      </Link>
    ),
  },
  { id: "chunks", header: "Chunks", className: "tabular-nums", cell: (d) => d.chunk_count },
  {
    id: "question",
    header: "Nearest logged question",
    cell: (d) =>
      d.nearest_question ? (
        <>
          “{d.nearest_question.text}”{" "}
          <span className="whitespace-nowrap font-mono text-xs text-slate-600">distance {d.nearest_question.distance.toFixed(3)}</span>{" "}
          <Link href={inspectorHref(agentId, d.nearest_question.text, 5, d.id)} className="text-blue-700 underline">
            Inspect
            <span className="sr-only">
              {" "}
              “{d.nearest_question.text}” expecting {d.filename}
            </span>
          </Link>
        </>
      ) : (
        <span className="text-slate-600">no logged question</span>
      ),
  },
];

/**
 * The served documents no call of the agent retrieved in the coverage window, to review: each
 * with the logged question nearest to it, opened in the inspector with the document expected
 * (why does that question not reach it?).
 */
export function NeverRetrieved({ agentId, never, sinceText }: { agentId: number; never: Never; sinceText: string }) {
  return (
    <section aria-labelledby="never-heading" className="space-y-2">
      <h2 id="never-heading" className="font-semibold">
        Never retrieved {sinceText} ({never.total})
      </h2>
      {never.calls === 0 ? (
        <p className="text-sm text-slate-600">
          No search or ask of the agent was logged {sinceText}: coverage counts the agent&apos;s own calls, not the inspector&apos;s or
          evaluations&apos;.
        </p>
      ) : never.total === 0 ? (
        <p className="text-sm text-slate-600">Every document was retrieved at least once {sinceText}.</p>
      ) : (
        <>
          <p className="max-w-3xl text-sm text-slate-600">
            None of the agent&apos;s {plural(never.calls, "call")} {sinceText} returned these documents. Beside each, the logged question
            nearest to it: a question it may answer and does not reach, or a sign that nobody asks about it.
          </p>
          <DataTable
            caption={`Never retrieved ${sinceText}${never.total > never.documents.length ? `, the first ${never.documents.length}` : ""}`}
            captionClassName="p-2 text-left text-xs text-slate-600"
            columns={columns(agentId)}
            rows={never.documents}
            rowKey={(d) => d.id}
          />
        </>
      )}
    </section>
  );
}
