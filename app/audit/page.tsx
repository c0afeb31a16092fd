import type { Metadata } from "next";
import { listAgents } from "@/lib/db/agents";
import { currentIdentity } from "@/lib/auth";
import { AuditPanel } from "@/components/audit/audit-panel";
import { RebuildIndex } from "@/components/audit/rebuild-index";
import { IndexRecallTable } from "@/components/audit/index-recall-table";
import { latestIndexRecalls } from "@/lib/db/index-recall";
import { indexRecallView } from "@/lib/retrieval/index-recall";
import { env } from "@/lib/env.mjs";
import { indexBacklog } from "@/lib/index-upkeep/health";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Index health · KB Inspector" };

export default async function AuditPage() {
  // Names for the agent column; an id missing here belongs to a deleted agent.
  const list = listAgents();
  const agents = Object.fromEntries(list.map((a) => [a.id, a.name]));
  const measured = new Map(latestIndexRecalls().map((r) => [r.agent_id, r]));
  const recall = list.map((a) => ({ name: a.name, recall: indexRecallView(a.id, measured.get(a.id) ?? null) }));
  const canRepair = (await currentIdentity())?.role === "editor";
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Index health</h1>
        <p className="mt-1 text-sm text-slate-600">
          Compares every document in the database with the vectors in Chroma, across all agents. A problem here means searches miss parts of
          a document, or Chroma keeps vectors that nothing uses.
        </p>
      </div>
      <AuditPanel agents={agents} canRepair={canRepair} />
      <IndexRecallTable rows={recall} threshold={env().INDEX_RECALL_WARN} exact={indexBacklog().exact} />
      <RebuildIndex canRebuild={canRepair} />
    </div>
  );
}
