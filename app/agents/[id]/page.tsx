import { notFound } from "next/navigation";
import { findAgent } from "@/lib/agents";
import { listDocuments } from "@/lib/documents";
import { UploadForm } from "@/components/documents/upload-form";
import { DocumentsTable } from "@/components/documents/documents-table";
import { SearchPanel } from "@/components/search/search-panel";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ q?: string; k?: string }> };

export default async function AgentPage({ params, searchParams }: Props) {
  const { id } = await params;
  const agent = /^\d+$/.test(id) ? findAgent(Number(id)) : undefined;
  if (!agent) notFound();
  const sp = await searchParams;
  const k = Number(sp.k);
  const topK = Number.isInteger(k) && k >= 1 && k <= 100 ? k : 3;
  const documents = listDocuments(agent.id);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">{agent.name}</h1>
        <p className="mt-1 text-sm text-slate-600">
          Agent {agent.id} · tools: {agent.tools.join(", ") || "none"}
        </p>
      </div>
      <SearchPanel agentId={agent.id} query={(sp.q ?? "").trim()} topK={topK} />
      <UploadForm agentId={agent.id} />
      <section aria-labelledby="documents-heading" className="space-y-2">
        <h2 id="documents-heading" className="font-semibold">
          Documents
        </h2>
        <DocumentsTable agentId={agent.id} documents={documents} />
      </section>
    </div>
  );
}
