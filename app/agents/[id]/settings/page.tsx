import { agentFromParams } from "@/lib/http/agent-param";
import { listDocuments } from "@/lib/db/documents";
import { AgentSettingsForm } from "@/components/agents/agent-settings-form";
import { CutForm } from "@/components/agents/cut-form";
import { RerankerForm } from "@/components/agents/reranker-form";
import { rerankerStatus } from "@/lib/rerank/settings";
import { embedder } from "@/lib/embeddings/configured";
import { DeleteAgentButton } from "@/components/agents/delete-agent-button";
import { plural } from "@/lib/format/plural";
import { currentIdentity } from "@/lib/auth";
import { currentIndexRecall } from "@/lib/retrieval/index-recall";
import { IndexRecallSummary } from "@/components/agents/index-recall-summary";

export const dynamic = "force-dynamic";

export default async function AgentSettingsPage({ params }: { params: Promise<{ id: string }> }) {
  const agent = await agentFromParams(params);
  const docs = listDocuments(agent.id);
  const chunks = docs.reduce((n, d) => n + d.chunk_count, 0);
  const canEdit = (await currentIdentity())?.role === "editor";
  return (
    <div className="space-y-6">
      <IndexRecallSummary recall={currentIndexRecall(agent.id)} canMeasure={canEdit} />
      <AgentSettingsForm
        agentId={agent.id}
        name={agent.name}
        tools={agent.tools}
        retrievalMode={agent.retrieval_mode}
        logQuestions={agent.log_questions}
      />
      <CutForm agentId={agent.id} maxDistance={agent.max_distance} setFor={agent.max_distance_model} model={embedder().model} />
      <RerankerForm agentId={agent.id} status={rerankerStatus(agent.id)} />
      <section aria-labelledby="danger-heading" className="space-y-2 rounded border border-red-200 bg-white p-4">
        <h2 id="danger-heading" className="font-semibold text-red-800">
          Delete this agent
        </h2>
        <p className="text-sm text-slate-700">
          Deletes the agent, its {plural(docs.length, "document")} and their {plural(chunks, "chunk")} from the index, its labeled pairs and
          evaluation runs. This cannot be undone.
        </p>
        <DeleteAgentButton agentId={agent.id} name={agent.name} documents={docs.length} chunks={chunks} />
      </section>
    </div>
  );
}
