import { agentFromParams } from "@/lib/http/agent-param";
import { documentIdsByFilename } from "@/lib/evaluation/labeled-pairs";
import { listPairs } from "@/lib/db/pairs";
import { NO_DOCUMENT } from "@/lib/validations/pair";
import { AddPairForm } from "@/components/eval/add-pair-form";
import { ImportPairsForm } from "@/components/eval/import-pairs-form";
import { PairsTable } from "@/components/eval/pairs-table";
import { GenerateForm } from "@/components/eval/generate-form";
import { ProposedPairs } from "@/components/eval/proposed-pairs";
import { listDocuments } from "@/lib/db/documents";
import { chatModel } from "@/lib/ask/chat";

export const dynamic = "force-dynamic";

export default async function PairsPage({ params }: { params: Promise<{ id: string }> }) {
  const agent = await agentFromParams(params);
  const documentIds = documentIdsByFilename(agent.id);
  // Proposals are reviewed in their own list; the table holds the pairs that count in runs.
  const pairs = listPairs(agent.id, { status: "accepted" });
  const proposals = listPairs(agent.id, { status: "proposed" });
  const filenames = [...documentIds.keys()].sort();
  const ready = listDocuments(agent.id)
    .filter((d) => d.status === "ready")
    .sort((a, b) => a.filename.localeCompare(b.filename))
    .map((d) => ({ id: d.id, filename: d.filename }));
  const api = `/api/agents/${agent.id}/pairs`;
  return (
    <div className="space-y-6">
      <p className="max-w-3xl text-sm text-slate-600">
        A pair is a question and the document that should answer it. Mark a question nothing in the knowledge base answers as unanswerable:
        unanswerable pairs calibrate the no-match cut on the dashboard, so the agent&apos;s search returns nothing for them.
      </p>
      <AddPairForm agentId={agent.id} filenames={filenames} />
      <ImportPairsForm agentId={agent.id} />
      {ready.length > 0 && <GenerateForm agentId={agent.id} documents={ready} generator={chatModel()?.model ?? "offline"} />}
      {(proposals.length > 0 || ready.length > 0) && (
        <ProposedPairs
          agentId={agent.id}
          filenames={filenames}
          proposals={proposals.map((p) => ({
            id: p.id,
            query: p.query,
            expected: p.expected_filename,
            documentId: documentIds.get(p.expected_filename) ?? null,
          }))}
        />
      )}
      <section aria-labelledby="pairs-list-heading" className="space-y-2">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="pairs-list-heading" className="text-lg font-semibold">
            {pairs.length} labeled {pairs.length === 1 ? "pair" : "pairs"}
          </h2>
          {pairs.length > 0 && (
            <p className="flex gap-3 text-sm">
              <a href={`${api}?format=csv`} download className="text-blue-700 underline">
                Export CSV
              </a>
              <a href={`${api}?format=jsonl`} download className="text-blue-700 underline">
                Export JSONL
              </a>
            </p>
          )}
        </div>
        <PairsTable
          agentId={agent.id}
          filenames={filenames}
          pairs={pairs.map((p) => ({
            id: p.id,
            query: p.query,
            expected: p.expected_filename,
            note: p.note,
            answerable: p.expected_filename !== NO_DOCUMENT,
            documentId: documentIds.get(p.expected_filename) ?? null,
            source: p.source,
            filter: p.filter,
          }))}
        />
      </section>
    </div>
  );
}
