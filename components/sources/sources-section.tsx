import { AddSourceForm } from "./add-source-form";
import { SourceCard, type SourceView } from "./source-card";

/** The agent's sources on the Documents tab: pages kept in step with a sitemap or a list of URLs. */
export function SourcesSection({ agentId, sources, canEdit }: { agentId: number; sources: SourceView[]; canEdit: boolean }) {
  return (
    <section aria-labelledby="sources-heading" className="space-y-3">
      <h2 id="sources-heading" className="font-semibold">
        Sources ({sources.length})
      </h2>
      <p className="max-w-3xl text-sm text-slate-600">
        Web pages this agent keeps in step with: a sitemap, or a list of page URLs. A sync fetches the pages, re-indexes those that changed,
        adds new ones and, for pages that left the sitemap or answer 404/410, removes their documents or proposes the removal, as the source
        says.
      </p>
      {sources.map((s) => (
        <SourceCard key={s.id} agentId={agentId} source={s} canEdit={canEdit} />
      ))}
      {canEdit && <AddSourceForm agentId={agentId} />}
    </section>
  );
}
