import { agentFromParams } from "@/lib/http/agent-param";
import { listDocuments } from "@/lib/db/documents";
import { agentFacets } from "@/lib/db/metadata";
import { UploadPanel } from "@/components/documents/upload-panel";
import { DocumentsTable, type RowCoverage } from "@/components/documents/documents-table";
import { RecentRefusals } from "@/components/documents/recent-refusals";
import { NeverRetrieved } from "@/components/documents/never-retrieved";
import { CoverageWindow, WINDOWS, sinceText } from "@/components/documents/coverage-window";
import { recentRefusals } from "@/lib/db/tool-calls";
import { env } from "@/lib/env.mjs";
import { currentIdentity } from "@/lib/auth";
import { currentIndexRecall } from "@/lib/retrieval/index-recall";
import { indexRecallWarning } from "@/lib/client/index-recall";
import { agentCoverage, DEFAULT_SINCE, neverRetrieved, parseSince } from "@/lib/questions/coverage";
import { IndexRecallSummary } from "@/components/agents/index-recall-summary";
import { SourcesSection } from "@/components/sources/sources-section";
import { listSources } from "@/lib/db/sources";
import { sourceDetail } from "@/lib/sources/views";
import { plural } from "@/lib/format/plural";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ since?: string }> };

/**
 * The agent's documents first, with what its own calls retrieved of each in a window (`?since=`),
 * then the documents never retrieved in it; uploads and sources in their panels below; index
 * recall only when it warns (its figures are on the Settings tab).
 */
export default async function AgentDocumentsPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const asked = (await searchParams).since;
  const window = WINDOWS.find((w) => w.since === asked)?.since ?? DEFAULT_SINCE;
  const since = parseSince(window);
  const documents = listDocuments(agent.id);
  const refusals = recentRefusals(agent.id, 10);
  const canEdit = (await currentIdentity())?.role === "editor";
  const sources = listSources(agent.id).map((s) => sourceDetail(agent.id, s.id));
  const recall = currentIndexRecall(agent.id);
  const coverage = agentCoverage(agent.id, since);
  const byId: Record<number, RowCoverage> = Object.fromEntries(
    coverage.documents.map((d) => [d.id, { retrieved: d.retrieved, first: d.ranks["1"], last_at: d.last_at }]),
  );
  const text = sinceText(since);
  return (
    <div className="space-y-6">
      {indexRecallWarning(recall) && <IndexRecallSummary recall={recall} canMeasure={canEdit} />}
      <section aria-labelledby="documents-heading" className="space-y-2">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="documents-heading" className="font-semibold">
            Documents ({documents.length})
          </h2>
          <CoverageWindow agentId={agent.id} current={window} />
        </div>
        {documents.length > 0 && (
          <p className="text-sm text-slate-600">
            Retrieved: how many of the agent&apos;s {plural(coverage.calls, "search and ask", "searches and asks")} {text} returned the
            document, and in how many it came first; the inspector&apos;s and evaluations&apos; calls are not counted.
          </p>
        )}
        <DocumentsTable agentId={agent.id} documents={documents} facets={agentFacets(agent.id)} coverage={byId} />
      </section>
      {coverage.documents.length > 0 && (
        <NeverRetrieved agentId={agent.id} never={await neverRetrieved(agent.id, since, 20)} sinceText={text} />
      )}
      <UploadPanel agentId={agent.id} maxFiles={env().MAX_FILES_PER_REQUEST} maxBytes={env().MAX_REQUEST_BYTES} />
      <SourcesSection agentId={agent.id} sources={sources} canEdit={canEdit} />
      <RecentRefusals agentId={agent.id} refusals={refusals} />
    </div>
  );
}
