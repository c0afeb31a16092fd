import { agentFromParams } from "@/lib/http/agent-param";
import { pairsToRun } from "@/lib/db/pairs";
import { EvalNav } from "@/components/eval/eval-nav";

export default async function EvalLayout({ params, children }: { params: Promise<{ id: string }>; children: React.ReactNode }) {
  const agent = await agentFromParams(params);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="max-w-3xl text-sm text-slate-600">
          How often does a question find the article it should? Each labeled pair is a query and the document it should retrieve; an
          evaluation ranks that document for every pair.
        </p>
        <EvalNav agentId={agent.id} pairCount={pairsToRun(agent.id).length} />
      </div>
      {children}
    </div>
  );
}
