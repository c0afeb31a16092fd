import { agentFromParams } from "@/lib/http/agent-param";
import { DISTANCE_LABEL } from "@/lib/vector-store/client";
import { listDocuments } from "@/lib/db/documents";
import { listDrafts } from "@/lib/db/drafts";
import { embedder } from "@/lib/embeddings/configured";
import { Inspector } from "@/components/search/inspector";
import { INSPECTOR_MAX_K as MAX_K } from "@/lib/validations/search";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ q?: string; k?: string; expected?: string; draft?: string; filter?: string }>;
};

export default async function SearchInspectorPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const sp = await searchParams;
  const k = Number(sp.k);
  const documents = listDocuments(agent.id).filter((d) => d.status === "ready");
  const expected = Number(sp.expected);
  const drafts = listDrafts(agent.id).map((d) => ({ id: d.id, name: d.name }));
  const draft = Number(sp.draft);
  return (
    <Inspector
      agentId={agent.id}
      documents={documents.map((d) => ({ id: d.id, filename: d.filename }))}
      space={DISTANCE_LABEL}
      queryNote={
        embedder().embedQueries
          ? `Query words count by how rare they are among this agent's chunks (${embedder().model}), ` +
            "so adding or removing documents can change a query's distances."
          : undefined
      }
      initial={{
        query: sp.q ?? "",
        topK: Number.isInteger(k) && k >= 1 && k <= MAX_K ? k : 3,
        expected: documents.some((d) => d.id === expected) ? expected : null,
        draft: drafts.some((d) => d.id === draft) ? draft : null,
        // The metadata filter as JSON text (a logged call's, from "inspect this question"); the inspector checks it.
        filter: sp.filter ?? "",
      }}
      drafts={drafts}
    />
  );
}
