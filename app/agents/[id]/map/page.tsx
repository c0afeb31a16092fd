import { agentFromParams } from "@/lib/http/agent-param";
import { MapView } from "@/components/map/map-view";

export const dynamic = "force-dynamic";

export default async function MapPage({ params }: { params: Promise<{ id: string }> }) {
  const agent = await agentFromParams(params);
  return (
    <div className="space-y-4">
      <p className="max-w-3xl text-sm text-slate-600">
        Every ready chunk of this agent and every question it was asked, placed by meaning: a cluster is a topic its documents cover, a
        question far from every chunk is one they do not. The map is computed in the background and kept until the documents or the
        questions change.
      </p>
      <MapView agentId={agent.id} />
    </div>
  );
}
