import type { Metadata } from "next";
import { listAgents } from "@/lib/db/agents";
import { currentIdentity } from "@/lib/auth";
import { AuditPanel } from "@/components/audit/audit-panel";
import { RebuildIndex } from "@/components/audit/rebuild-index";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Index health · KB Inspector" };

export default async function AuditPage() {
  // Names for the agent column; an id missing here belongs to a deleted agent.
  const agents = Object.fromEntries(listAgents().map((a) => [a.id, a.name]));
  const canRepair = (await currentIdentity())?.role === "editor";
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Index health</h1>
        <p className="mt-1 text-sm text-slate-600">
          Compares every document in the database with the vectors in Chroma, across all agents. A problem here means searches miss
          parts of a document, or Chroma keeps vectors that nothing uses.
        </p>
      </div>
      <AuditPanel agents={agents} canRepair={canRepair} />
      <RebuildIndex canRebuild={canRepair} />
    </div>
  );
}
