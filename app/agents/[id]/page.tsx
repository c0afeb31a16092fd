import { agentFromParams } from "@/lib/http/agent-param";
import { listDocuments } from "@/lib/db/documents";
import { agentFacets } from "@/lib/db/metadata";
import { UploadPanel } from "@/components/documents/upload-panel";
import { DocumentsTable } from "@/components/documents/documents-table";
import { RecentRefusals } from "@/components/documents/recent-refusals";
import { recentRefusals } from "@/lib/db/tool-calls";
import { env } from "@/lib/env.mjs";
import { currentIdentity } from "@/lib/auth";
import { currentIndexRecall } from "@/lib/retrieval/index-recall";
import { IndexRecallSummary } from "@/components/agents/index-recall-summary";
import { SourcesSection } from "@/components/sources/sources-section";
import { listSources } from "@/lib/db/sources";
import { sourceDetail } from "@/lib/sources/views";

export const dynamic = "force-dynamic";

export default async function AgentDocumentsPage({ params }: { params: Promise<{ id: string }> }) {
  const agent = await agentFromParams(params);
  const documents = listDocuments(agent.id);
  const refusals = recentRefusals(agent.id, 10);
  const canEdit = (await currentIdentity())?.role === "editor";
  const sources = listSources(agent.id).map((s) => sourceDetail(agent.id, s.id));
  return (
    <div className="space-y-6">
      <IndexRecallSummary recall={currentIndexRecall(agent.id)} canMeasure={canEdit} />
      <UploadPanel agentId={agent.id} maxFiles={env().MAX_FILES_PER_REQUEST} maxBytes={env().MAX_REQUEST_BYTES} />
      <SourcesSection agentId={agent.id} sources={sources} canEdit={canEdit} />
      <section aria-labelledby="documents-heading" className="space-y-2">
        <h2 id="documents-heading" className="font-semibold">
          Documents ({documents.length})
        </h2>
        <DocumentsTable agentId={agent.id} documents={documents} facets={agentFacets(agent.id)} />
      </section>
      <RecentRefusals agentId={agent.id} refusals={refusals} />
    </div>
  );
}
