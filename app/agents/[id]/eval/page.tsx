import Link from "next/link";
import { agentFromParams } from "@/lib/http/agent-param";
import { currentIdentity } from "@/lib/auth";
import { agentChunkCount } from "@/lib/db/documents";
import { alternativeEmbedder, embedder } from "@/lib/embeddings/configured";
import { calibrateCut, calibrateRerankCut } from "@/lib/evaluation/calibrate";
import { compareRuns, inTimeOrder } from "@/lib/evaluation/compare";
import { documentIdsByFilename } from "@/lib/evaluation/labeled-pairs";
import { isHit } from "@/lib/core/metrics";
import { compareModes, latestRunPerMode, pairKey } from "@/lib/evaluation/mode-comparison";
import { listRuns, runResults, type EvalRun, type PairResult } from "@/lib/db/eval-runs";
import { pairsToRun } from "@/lib/db/pairs";
import { beyondCut, noMatchCut, rerankCutFor } from "@/lib/retrieval/cut";
import { servingVersion } from "@/lib/retrieval/rerank";
import { MAX_K, PAIR_SOURCES } from "@/lib/validations/pair";
import { plural } from "@/lib/format/plural";
import { ChunkSweep } from "@/components/eval/chunk-sweep";
import { ComparisonView } from "@/components/eval/comparison-view";
import { CutCalibration } from "@/components/eval/cut-calibration";
import { Headline } from "@/components/eval/headline";
import { ModeComparisonView } from "@/components/eval/mode-comparison";
import { PairResultsTable } from "@/components/eval/pair-results-table";
import { RecallCurve } from "@/components/eval/recall-curve";
import { RunHistory } from "@/components/eval/run-history";
import { RunLauncher } from "@/components/eval/run-launcher";
import { rankingText, rerankerText } from "@/components/eval/run-settings";
import { DistanceNote } from "@/components/ui/distance-note";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ run?: string; k?: string; base?: string; head?: string }> };

const pick = (runs: EvalRun[], raw?: string) => runs.find((r) => String(r.id) === raw);

export default async function EvalDashboardPage({ params, searchParams }: Props) {
  const agent = await agentFromParams(params);
  const sp = await searchParams;
  const runs = listRuns(agent.id);
  const finished = runs.filter((r) => r.status === "done");
  const running = runs.findLast((r) => r.status === "running");
  const run = pick(finished, sp.run) ?? finished.at(-1);
  const askedK = Number(sp.k);
  const k = Number.isInteger(askedK) && askedK >= 1 && askedK <= MAX_K ? askedK : (run?.k ?? 3);
  const pairs = pairsToRun(agent.id);
  const pairCount = pairs.length;
  const canEdit = (await currentIdentity())?.role === "editor";
  const documentIds = documentIdsByFilename(agent.id);
  const results = run ? runResults(run.id) : [];
  // An unanswerable pair is refused when its closest chunk is past the cut the run searched with.
  const refusedOf = (r: PairResult) => (r.answerable ? null : beyondCut(r.top_distance, run?.max_distance ?? null));
  // A run's distances say nothing about another model's, so the agent's cut is compared only within one model.
  const model = embedder().model;
  const otherModel = run && run.embedding_model !== model ? run.embedding_model : null;
  // A reranked run calibrates the cut on its reranker's score, for the version it ranked with.
  const rerankedBy = run && run.reranker !== "none" ? run.reranker_version : null;
  const serving = rerankedBy ? servingVersion(agent) : null;
  const rerank = rerankedBy ? { version: rerankedBy, otherReranker: serving === rerankedBy ? null : (serving ?? "none") } : undefined;
  const calibration = !run
    ? null
    : rerankedBy
      ? calibrateRerankCut(results, k, rerankCutFor(agent, rerankedBy))
      : calibrateCut(results, k, otherModel ? null : noMatchCut(agent, model));

  // By default the viewed run is compared with the finished run before it.
  const pickedHead = pick(finished, sp.head) ?? run;
  const pickedBase = pick(finished, sp.base) ?? finished[finished.findIndex((r) => r.id === pickedHead?.id) - 1];
  // Runs picked the wrong way round are compared oldest first: otherwise added pairs would read as removed.
  const ordered = pickedBase && pickedHead ? inTimeOrder(pickedBase, pickedHead) : null;
  const [base, head] = ordered ? [ordered.earlier, ordered.later] : [pickedBase, pickedHead];
  const comparison = base && head && base.id !== head.id ? compareRuns(runResults(base.id), runResults(head.id), k) : null;
  // Modes are compared only on runs over the pairs as they are now.
  const modeRuns = latestRunPerMode(
    finished,
    pairs.map((p) => pairKey({ pair_id: p.id, query: p.query, expected: p.expected_filename })),
    runResults,
  );
  const modes = modeRuns.length >= 2 ? compareModes(modeRuns, k, agent.retrieval_mode) : null;

  return (
    <div className="space-y-8">
      <RunLauncher
        agentId={agent.id}
        agentMode={agent.retrieval_mode}
        reranker={agent.reranker === "none" ? null : agent.reranker}
        pairCount={pairCount}
        sourceCounts={Object.fromEntries(PAIR_SOURCES.map((s) => [s, pairs.filter((p) => p.source === s).length]))}
        chunkCount={agentChunkCount(agent.id)}
        defaultK={run?.k ?? 3}
        runningId={running?.id}
      />
      <ChunkSweep
        agentId={agent.id}
        pairCount={pairCount}
        canEdit={canEdit}
        model={model}
        alternativeModel={alternativeEmbedder()?.model ?? null}
      />
      {!run ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
          No finished evaluation yet.{" "}
          {pairCount === 0 ? (
            <>
              Start by{" "}
              <Link href={`/agents/${agent.id}/eval/pairs`} className="text-blue-700 underline">
                adding or importing labeled pairs
              </Link>
              , then run one above.
            </>
          ) : (
            `Run one above to see recall@k, MRR and every pair's rank.`
          )}
        </p>
      ) : (
        <>
          <Headline
            run={run}
            k={k}
            hits={results.filter((r) => isHit(r, k)).length}
            refused={results.filter((r) => refusedOf(r)).length}
            currentPairs={run.pair_source ? pairs.filter((p) => p.source === run.pair_source).length : pairCount}
          />
          <section aria-labelledby="curve-heading" className="space-y-2 rounded border border-slate-200 bg-white p-4">
            <h2 id="curve-heading" className="font-semibold">
              Recall@k for k = 1 to 20
            </h2>
            <p className="text-sm text-slate-600">
              How many pairs would be answered if the agent retrieved k results. The dashed line marks the k shown above.
            </p>
            <RecallCurve recall={run.recall_at_k ?? {}} k={k} />
          </section>
          <ModeComparisonView
            agentId={agent.id}
            comparison={modes}
            canEdit={canEdit}
            documentIds={Object.fromEntries(documentIds)}
            rerankers={Object.fromEntries(modeRuns.map((m) => [m.run.id, rerankerText(m.run)]))}
          />
          {calibration && (
            <CutCalibration
              key={`${run.id}-${k}`}
              agentId={agent.id}
              calibration={calibration}
              canEdit={canEdit}
              otherModel={otherModel}
              rerank={rerank}
            />
          )}
          <section aria-labelledby="pairs-heading" className="space-y-2">
            <h2 id="pairs-heading" className="text-lg font-semibold">
              Every pair at k = {k}
            </h2>
            <p className="text-sm text-slate-600">
              Rank is where the expected document&apos;s best chunk landed among all {plural(run.chunk_count, "chunk")}; distance is its
              cosine distance. An unanswerable pair has no rank: its distance is that of its closest chunk, and it is refused when that is
              past the run&apos;s cut. “Inspect” opens the query in the inspector with the expected document marked.
            </p>
            <DistanceNote />
            <PairResultsTable
              agentId={agent.id}
              k={k}
              rows={results.map((r) => ({
                query: r.query,
                expected: r.expected,
                documentId: documentIds.get(r.expected) ?? null,
                rank: r.rank,
                distance: r.best_distance,
                missing: r.missing,
                beyondCut: r.beyond_cut,
                answerable: r.answerable,
                topDistance: r.top_distance,
                refused: refusedOf(r),
              }))}
            />
          </section>
        </>
      )}
      {runs.length > 0 && <RunHistory agentId={agent.id} runs={runs} k={k} selectedId={run?.id} base={base?.id} head={head?.id} />}
      {comparison && base && head && (
        <ComparisonView
          agentId={agent.id}
          comparison={comparison}
          base={base.id}
          head={head.id}
          swapped={ordered?.swapped ?? false}
          documentIds={documentIds}
          ranking={{ base: rankingText(base), head: rankingText(head) }}
        />
      )}
    </div>
  );
}
