import Link from "next/link";
import { listAgents } from "@/lib/db/agents";
import { CreateAgentForm } from "@/components/agents/create-agent-form";

export const dynamic = "force-dynamic";

export default function AgentsPage() {
  const agents = listAgents();
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Agents</h1>
        <p className="mt-1 text-sm text-slate-600">Each agent retrieves only from its own documents.</p>
      </div>
      <CreateAgentForm />
      {agents.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
          No agents yet. Create one above, then upload its articles.
        </p>
      ) : (
        // A table wider than the screen scrolls inside this box rather than widening the page.
        <div className="relative overflow-x-auto">
          <table className="w-full rounded border border-slate-200 bg-white text-sm">
            <thead className="bg-slate-100 text-left whitespace-nowrap">
              <tr>
                <th className="px-4 py-2">Agent</th>
                <th className="px-4 py-2">Documents</th>
                <th className="px-4 py-2">Chunks</th>
                <th className="px-4 py-2">Tools</th>
                <th className="px-4 py-2">Last activity</th>
                <th className="px-4 py-2">
                  <span className="sr-only">Shortcuts</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={a.id} className="border-t border-slate-200">
                  <td className="px-4 py-2">
                    <Link href={`/agents/${a.id}`} className="font-medium text-blue-700 underline">
                      {a.name}
                    </Link>
                  </td>
                  <td className="px-4 py-2">{a.document_count}</td>
                  <td className="px-4 py-2">{a.chunk_count}</td>
                  <td className="px-4 py-2">{a.tools.join(", ") || "none"}</td>
                  <td className="px-4 py-2 whitespace-nowrap">
                    {a.last_activity ? new Date(a.last_activity).toLocaleString("en-GB") : "—"}
                  </td>
                  <td className="space-x-3 px-4 py-2 text-right whitespace-nowrap">
                    <Link href={`/agents/${a.id}/search`} className="text-blue-700 hover:underline">
                      Inspect<span className="sr-only"> {a.name}</span>
                    </Link>
                    <Link href={`/agents/${a.id}/eval`} className="text-blue-700 hover:underline">
                      Recall<span className="sr-only"> of {a.name}</span>
                    </Link>
                    <Link href={`/agents/${a.id}/settings`} className="text-blue-700 hover:underline">
                      Settings<span className="sr-only"> of {a.name}</span>
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
