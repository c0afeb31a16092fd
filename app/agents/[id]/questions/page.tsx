import { agentFromParams } from "@/lib/http/agent-param";
import { currentIdentity } from "@/lib/auth";
import { documentIdsByFilename } from "@/lib/evaluation/labeled-pairs";
import { listGaps, type GapList } from "@/lib/questions/gaps";
import { listQuestions, MAX_QUESTIONS_LISTED } from "@/lib/questions/list";
import { changedSinceLastQuestion } from "@/lib/db/questions";
import { listDrafts } from "@/lib/db/drafts";
import { questionListSchema } from "@/lib/validations/questions";
import { isVectorStoreUnavailable, vectorStoreUnavailable } from "@/lib/core/errors";
import { plural } from "@/lib/format/plural";
import { when } from "@/components/eval/run-settings";
import { GapsSection } from "@/components/questions/gaps-section";
import { QuestionFilters } from "@/components/questions/question-filters";
import { QuestionsTable } from "@/components/questions/questions-table";
import { ReplayPanel } from "@/components/questions/replay-panel";
import { DistanceNote } from "@/components/ui/distance-note";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ status?: string | string[]; q?: string | string[]; since?: string | string[]; draft?: string | string[] }>;
};

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? "";

/** Gaps are asked again now; Chroma being down says so in their section instead of failing the whole tab. */
async function gapsOrError(agentId: number): Promise<{ list: GapList | null; error: string | null }> {
  try {
    return { list: await listGaps(agentId), error: null };
  } catch (err) {
    if (isVectorStoreUnavailable(err)) return { list: null, error: vectorStoreUnavailable().message };
    throw err;
  }
}

export default async function QuestionsPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const sp = await searchParams;
  const values = { status: one(sp.status), q: one(sp.q), since: one(sp.since) };
  // `?draft=`: the replay preselects that draft (questions asked as it would leave the agent).
  const drafts = listDrafts(agent.id).map((d) => ({ id: d.id, name: d.name }));
  const draftParam = Number(one(sp.draft));
  // Empty fields of the filter form mean "any"; a bad value is said above the list and left out.
  const parsed = questionListSchema.safeParse(Object.fromEntries(Object.entries(values).filter(([, v]) => v !== "")));
  const filter = parsed.success ? parsed.data : {};
  const filterError = parsed.success ? null : `Not filtered: ${parsed.error.issues.map((i) => i.message).join(" ")}`;
  const [list, gaps, identity] = await Promise.all([listQuestions(agent.id, filter), gapsOrError(agent.id), currentIdentity()]);
  const canEdit = identity?.role === "editor";
  const documentIds = documentIdsByFilename(agent.id);
  const documents = [...documentIds.keys()].sort();
  const count = list.questions.length;

  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <p className="max-w-3xl text-sm text-slate-600">
          What this agent asked through its search API and asks (the inspector&apos;s tries are not here), grouped when worded alike. Label
          a question with the document that answers it and it becomes a labeled pair on the Recall tab; mark it unanswerable to calibrate
          the no-match cut; mark it a gap to put it on the list of articles to write.
        </p>
        {!list.logging && (
          <p role="note" className="max-w-3xl rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            This agent does not log its questions now (Settings): its new searches and asks are logged without their text and do not appear
            here.
          </p>
        )}
      </div>
      <section aria-labelledby="questions-heading" className="space-y-3">
        <h2 id="questions-heading" className="text-lg font-semibold">
          {count === MAX_QUESTIONS_LISTED ? `The ${MAX_QUESTIONS_LISTED} most asked questions` : plural(count, "question")}
        </h2>
        <QuestionFilters agentId={agent.id} values={{ ...values, since: values.since.slice(0, 10) }} error={filterError} />
        {count === 0 ? (
          <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">{list.empty_reason}</p>
        ) : (
          <>
            <p className="text-sm text-slate-600">
              Most asked first. Best distance is the nearest chunk&apos;s over all its calls, before any cut; top documents are what its
              latest call returned. “Inspect” opens the question in the inspector.
            </p>
            <DistanceNote />
            <QuestionsTable
              agentId={agent.id}
              canEdit={canEdit}
              documents={documents}
              rows={list.questions.map((q) => ({
                ...q,
                lastAskedText: when(q.last_asked),
                expectedId: q.expected ? (documentIds.get(q.expected) ?? null) : null,
              }))}
            />
          </>
        )}
      </section>
      <GapsSection agentId={agent.id} list={gaps.list} error={gaps.error} />
      <ReplayPanel
        agentId={agent.id}
        changed={changedSinceLastQuestion(agent.id)}
        drafts={drafts}
        draft={drafts.some((d) => d.id === draftParam) ? draftParam : null}
      />
    </div>
  );
}
