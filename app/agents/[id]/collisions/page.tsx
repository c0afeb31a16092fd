import { agentFromParams } from "@/lib/http/agent-param";
import { currentIdentity } from "@/lib/auth";
import { findCollisions, oneCollisionSearch, type CollisionList } from "@/lib/collisions/collisions";
import { COLLISION_KINDS, collisionQuerySchema, type CollisionKind } from "@/lib/collisions/schema";
import { AppError } from "@/lib/core/errors";
import { plural } from "@/lib/format/plural";
import { CollisionCard, KIND_LABEL } from "@/components/collisions/collision-card";
import { KindFilter } from "@/components/collisions/kind-filter";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ kind?: string | string[] }> };

/** Read at once, so that every kind's count is known; the most the search returns. */
const SEARCHED = 500;
/** Collisions drawn with their evidence. */
const SHOWN = 100;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? "";

/**
 * The search runs one at a time across the app: a second one meanwhile is refused, and said so
 * on the page instead of failing it. It reads every served chunk within this request (the event
 * loop gets turns between slices), so a large agent's page takes seconds to answer.
 */
async function searchOrRefusal(agentId: number): Promise<{ list: CollisionList | null; refused: string | null }> {
  try {
    return { list: await oneCollisionSearch(agentId, () => findCollisions(agentId, { limit: SEARCHED })), refused: null };
  } catch (err) {
    if (err instanceof AppError && err.code === "conflict") return { list: null, refused: err.message };
    throw err;
  }
}

function scannedText({ scanned }: CollisionList): string {
  const shared = scanned.boilerplate_buckets > 0 ? "; text many documents share was left out" : "";
  return (
    `Scanned ${plural(scanned.documents, "served document")} (${plural(scanned.chunks, "chunk")}, ` +
    `${scanned.short_chunks} too short to compare${shared}) and ${plural(scanned.questions, "logged question")}.`
  );
}

export default async function CollisionsPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const sp = await searchParams;
  const parsed = collisionQuerySchema.pick({ kind: true }).safeParse({ kind: one(sp.kind) || undefined });
  const kind: CollisionKind | undefined = parsed.success ? parsed.data.kind : undefined;
  const [search, identity] = await Promise.all([searchOrRefusal(agent.id), currentIdentity()]);
  const canEdit = identity?.role === "editor";
  const { list, refused } = search;
  const counts = Object.fromEntries(COLLISION_KINDS.map((k) => [k, list?.collisions.filter((c) => c.kind === k).length ?? 0])) as Record<
    CollisionKind,
    number
  >;
  const listed = list?.collisions.filter((c) => kind === undefined || c.kind === kind) ?? [];
  const what = kind ? `${KIND_LABEL[kind].toLowerCase()} collision` : "collision";

  return (
    <div className="space-y-4">
      <p className="max-w-3xl text-sm text-slate-600">
        Pairs of served documents that get in each other&apos;s way: duplicates (the same text twice), conflicting copies (the same text
        with other figures, dates or setting names) and competing documents (different texts retrieved together for the same logged
        questions), the strongest first.
        {canEdit &&
          " Removing one side stages the removal in a new draft: preview its impact on the Drafts tab and publish it there; the agent serves both until then."}
      </p>
      {!parsed.success && (
        <p role="note" className="text-sm text-amber-900">
          Not filtered: {parsed.error.issues.map((i) => i.message).join(" ")}
        </p>
      )}
      {refused !== null && (
        <p role="status" className="max-w-3xl rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {refused}
        </p>
      )}
      {list && (
        <section aria-labelledby="collisions-heading" className="space-y-3">
          <KindFilter agentId={agent.id} kind={kind} counts={counts} all={list.collisions.length} />
          <h2 id="collisions-heading" className="text-lg font-semibold">
            {plural(listed.length, what)}
          </h2>
          <p className="text-sm text-slate-600">
            {scannedText(list)}
            {list.total > SEARCHED && ` ${plural(list.total, "collision")} were found; the strongest ${SEARCHED} are counted here.`}
            {listed.length > SHOWN && ` The strongest ${SHOWN} are shown.`}
          </p>
          {listed.length === 0 ? (
            <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
              {list.collisions.length === 0 ? "No collisions found." : `No ${what}s found; the other kinds are listed under All.`}
            </p>
          ) : (
            <ol className="space-y-3" aria-label="Collisions, strongest first">
              {listed.slice(0, SHOWN).map((c) => (
                <CollisionCard key={`${c.kind}:${c.a.document_id}:${c.b.document_id}`} agentId={agent.id} collision={c} canEdit={canEdit} />
              ))}
            </ol>
          )}
        </section>
      )}
    </div>
  );
}
