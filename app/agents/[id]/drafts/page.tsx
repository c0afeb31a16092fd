import { agentFromParams } from "@/lib/http/agent-param";
import { draftViews } from "@/lib/ingest/drafts";
import { DraftCard } from "@/components/drafts/draft-card";

export const dynamic = "force-dynamic";

export default async function AgentDraftsPage({ params }: { params: Promise<{ id: string }> }) {
  const agent = await agentFromParams(params);
  const drafts = draftViews(agent.id);
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700">
        A draft holds changes the agent does not serve yet: chunk edits, questions, switched-off chunks, re-chunks, uploads, deletions, the
        mode and the cut. Preview its impact on the labeled pairs and the latest logged questions, then publish it (all at once) or discard
        it. Stage changes from a document page, or a suggested fix from the Search inspector.
      </p>
      {drafts.length === 0 && <p className="text-sm text-slate-600">No drafts yet.</p>}
      {drafts.map((d) => (
        <DraftCard key={d.id} agentId={agent.id} draft={d} />
      ))}
    </div>
  );
}
