import Link from "next/link";
import { agentFromParams } from "@/lib/http/agent-param";
import { AgentTabs } from "@/components/agents/agent-tabs";

export default async function AgentLayout({ params, children }: { params: Promise<{ id: string }>; children: React.ReactNode }) {
  const agent = await agentFromParams(params);
  return (
    <div className="space-y-6">
      <div>
        <nav aria-label="Breadcrumb" className="text-sm text-slate-600">
          <ol className="[&>li]:inline">
            <li>
              <Link href="/" className="hover:underline">
                Agents
              </Link>
            </li>
            <li aria-current="page" className="[overflow-wrap:anywhere]">
              <span aria-hidden className="mx-1.5">
                /
              </span>
              {agent.name}
            </li>
          </ol>
        </nav>
        <h1 className="text-2xl font-semibold [overflow-wrap:anywhere]">{agent.name}</h1>
        {!agent.tools.includes("document_search") && (
          <p className="mt-1 text-sm text-amber-800">
            The document_search tool is off for this agent: the agent itself is refused (403) when it searches, until the tool is enabled in
            Settings. The search inspector and recall runs still show what it would retrieve.
          </p>
        )}
      </div>
      <AgentTabs agentId={agent.id} />
      {children}
    </div>
  );
}
