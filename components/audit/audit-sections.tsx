import Link from "next/link";
import type { AuditReport } from "@/lib/index-upkeep/audit";

/** Agent names by id, read when the page opened; an id not in it belongs to a deleted agent. */
export type AgentNames = Record<number, string>;

const SHOWN_IDS = 3;
const when = (iso: string) => (iso ? new Date(iso).toLocaleString("en-GB") : "—");

function AgentCell({ id, agents }: { id: number; agents: AgentNames }) {
  if (!(id in agents)) return <span className="text-slate-500">agent {id} (deleted)</span>;
  return (
    <Link href={`/agents/${id}`} className="text-blue-700 underline">
      {agents[id]}
    </Link>
  );
}

/** For the kinds of problem found from the documents table, where the row is known to exist. */
function DocumentLink({ agentId, documentId, filename }: { agentId: number; documentId: number; filename: string }) {
  return (
    <Link href={`/agents/${agentId}/documents/${documentId}`} className="text-blue-700 underline">
      {filename}
      <span className="text-slate-500"> #{documentId}</span>
    </Link>
  );
}

function Ids({ ids, total }: { ids: string[]; total: number }) {
  if (ids.length === 0) return <span className="text-slate-500">—</span>;
  const more = total - Math.min(ids.length, SHOWN_IDS);
  return (
    <span className="font-mono text-xs" title={ids.join("\n")}>
      {ids.slice(0, SHOWN_IDS).join(", ")}
      {more > 0 && <span className="font-sans text-slate-500"> and {more.toLocaleString("en")} more</span>}
    </span>
  );
}

function ProblemSection(props: {
  id: string;
  title: string;
  count: number;
  explanation: string;
  columns: string[];
  children: React.ReactNode;
}) {
  return (
    <section aria-labelledby={`${props.id}-heading`} className="space-y-2 rounded border border-slate-200 bg-white p-4">
      <div className="flex items-baseline gap-3">
        <h2 id={`${props.id}-heading`} className="font-semibold">
          {props.title}
        </h2>
        <span
          className={`rounded px-2 py-0.5 text-xs font-medium ${props.count > 0 ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-600"}`}
        >
          {props.count === 0 ? "none" : props.count.toLocaleString("en")}
        </span>
      </div>
      <p className="text-sm text-slate-600">{props.explanation}</p>
      {props.count > 0 && (
        <div className="relative overflow-x-auto">
          <table aria-label={props.title} className="w-full text-sm">
            <thead className="bg-slate-100 text-left">
              <tr>
                {props.columns.map((c) => (
                  <th key={c} className="whitespace-nowrap px-3 py-1.5 font-medium">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{props.children}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const cell = "px-3 py-1.5 align-top";

function IncompleteRows({ rows, agents }: { rows: AuditReport["missing_vectors"]; agents: AgentNames }) {
  return rows.map((d) => (
    <tr key={d.document_id} className="border-t border-slate-200">
      <td className={cell}>
        <AgentCell id={d.agent_id} agents={agents} />
      </td>
      <td className={cell}>
        <DocumentLink agentId={d.agent_id} documentId={d.document_id} filename={d.filename} />
      </td>
      <td className={cell}>{d.expected}</td>
      <td className={cell}>{d.found}</td>
      <td className={cell}>
        <Ids ids={d.ids} total={Math.max(d.expected - d.found, d.ids.length)} />
      </td>
    </tr>
  ));
}

/** The first unreachable chunks the audit names, and how many more it counted. */
function UnreachableRows({ report, agents }: { report: AuditReport; agents: AgentNames }) {
  const rows = report.unreachable_chunks ?? [];
  const more = (report.unreachable_count ?? 0) - rows.length;
  return (
    <>
      {rows.map((c) => (
        <tr key={c.id} className="border-t border-slate-200">
          <td className={cell}>
            <AgentCell id={c.agent_id} agents={agents} />
          </td>
          <td className={cell}>
            <DocumentLink agentId={c.agent_id} documentId={c.document_id} filename={c.filename} />
          </td>
          <td className={cell}>{c.chunk_index}</td>
        </tr>
      ))}
      {more > 0 && (
        <tr className="border-t border-slate-200">
          <td colSpan={3} className={`${cell} text-slate-500`}>
            and {more.toLocaleString("en")} more
          </td>
        </tr>
      )}
    </>
  );
}

export function AuditSections({ report, agents }: { report: AuditReport; agents: AgentNames }) {
  return (
    <div className="space-y-4">
      <ProblemSection
        id="orphans"
        title="Orphan vectors"
        count={report.orphan_vectors.length}
        explanation="Vectors in Chroma that no document accounts for: their document was deleted, belongs to another agent or was embedded with another model. Searches skip them, so they only take space. Repair removes them."
        columns={["Agent", "Document", "Collection", "Vectors", "First vector ids"]}
      >
        {report.orphan_vectors.map((o) => (
          <tr key={`${o.collection}|${o.agent_id}|${o.document_id}`} className="border-t border-slate-200">
            <td className={cell}>
              <AgentCell id={o.agent_id} agents={agents} />
            </td>
            <td className={cell}>document {o.document_id}</td>
            <td className={`${cell} font-mono text-xs`}>{o.collection}</td>
            <td className={cell}>{o.vectors}</td>
            <td className={cell}>
              <Ids ids={o.ids} total={o.vectors} />
            </td>
          </tr>
        ))}
      </ProblemSection>
      <ProblemSection
        id="missing"
        title="Missing vectors"
        count={report.missing_vectors.length}
        explanation="Ready documents with chunks that have no vector in Chroma: searches cannot find those parts of the text. Repair re-indexes each one from its stored text with its own chunk settings."
        columns={["Agent", "Document", "Chunks expected", "Chunks found", "First missing ids"]}
      >
        <IncompleteRows rows={report.missing_vectors} agents={agents} />
      </ProblemSection>
      <ProblemSection
        id="mismatches"
        title="Count mismatches"
        count={report.count_mismatches.length}
        explanation="Ready documents whose vectors in Chroma do not match their chunk count: some are missing, or left over from an earlier chunking. Repair re-indexes each one from its stored text."
        columns={["Agent", "Document", "Chunks expected", "Chunks found", "First missing ids"]}
      >
        <IncompleteRows rows={report.count_mismatches} agents={agents} />
      </ProblemSection>
      {report.reachability_checked != null && (
        <ProblemSection
          id="unreachable"
          title="Unreachable chunks"
          count={report.unreachable_count ?? 0}
          explanation="Chunks of ready documents that a search with the chunk's own vector does not return: Chroma's index does not reach them, so searches (even for the chunk's own text) leave them out and recall runs count them as absent. The inspector still places them by their exact distance and says so. Repair writes them again."
          columns={["Agent", "Document", "Chunk"]}
        >
          <UnreachableRows report={report} agents={agents} />
        </ProblemSection>
      )}
      <ProblemSection
        id="stuck"
        title="Stuck documents"
        count={report.stuck_documents.length}
        explanation="Documents left in “indexing” because the app stopped in the middle of an upload; they never become searchable. Repair marks them failed and removes their vectors; upload the files again afterwards."
        columns={["Agent", "Document", "Indexing since"]}
      >
        {report.stuck_documents.map((s) => (
          <tr key={s.document_id} className="border-t border-slate-200">
            <td className={cell}>
              <AgentCell id={s.agent_id} agents={agents} />
            </td>
            <td className={cell}>
              <DocumentLink agentId={s.agent_id} documentId={s.document_id} filename={s.filename} />
            </td>
            <td className={cell}>{when(s.since)}</td>
          </tr>
        ))}
      </ProblemSection>
      <ProblemSection
        id="cleanup"
        title="Awaiting clean-up"
        count={report.awaiting_cleanup.length}
        explanation="Removals of vectors that Chroma has not confirmed yet, for deleted or replaced documents. They are retried automatically until Chroma confirms, so they need nothing from you; Repair retries them at once."
        columns={["Agent", "Document", "Reason", "Attempts", "Next attempt"]}
      >
        {report.awaiting_cleanup.map((c, i) => (
          <tr key={`${c.agent_id}|${c.document_id}|${i}`} className="border-t border-slate-200">
            <td className={cell}>
              <AgentCell id={c.agent_id} agents={agents} />
            </td>
            <td className={cell}>{c.document_id === null ? "all of the agent’s" : `document ${c.document_id}`}</td>
            <td className={cell}>{c.reason}</td>
            <td className={cell}>{c.attempts}</td>
            <td className={cell}>{when(c.next_attempt_at)}</td>
          </tr>
        ))}
      </ProblemSection>
    </div>
  );
}
