import Link from "next/link";
import type { Collision } from "@/lib/collisions/collisions";
import type { Difference } from "@/lib/collisions/differences";
import { inspectorHref } from "@/components/eval/inspector-link";
import { FileName } from "@/components/ui/file-name";
import { plural } from "@/lib/format/plural";
import { highlight } from "./highlight";

type Of<K extends Collision["kind"]> = Extract<Collision, { kind: K }>;

const pct = (x: number) => `${Math.round(x * 100)}%`;
const CELL = "py-1.5 pr-3 align-top";

function Sentence({ d, side }: { d: Difference; side: "a" | "b" }) {
  const other = side === "a" ? "b" : "a";
  return (
    <>
      {highlight(d[side].sentence, d[other].sentence, d.tokens, side).map((s, k) =>
        s.marked ? (
          <mark key={k} className="rounded bg-amber-200 px-0.5 text-slate-900">
            {s.text}
          </mark>
        ) : (
          <span key={k}>{s.text}</span>
        ),
      )}
      <span className="block text-xs text-slate-500">chunk {d[side].chunk_index}</span>
    </>
  );
}

/** Conflicting: the sentences that differ, side by side, their differing tokens marked. */
export function ConflictEvidence({ c }: { c: Of<"conflicting"> }) {
  const { differences, similarity, matched_chunk_pairs } = c.evidence;
  return (
    <div className="space-y-2">
      <p className="text-slate-700">
        {pct(similarity)} alike over {plural(matched_chunk_pairs, "matching chunk pair")}; {plural(differences.length, "sentence")} differ:
      </p>
      <div className="overflow-x-auto">
        <table className="w-full table-fixed text-sm">
          <caption className="sr-only">
            Sentences that differ between {c.a.filename} and {c.b.filename}
          </caption>
          <thead className="text-left text-xs text-slate-600">
            <tr>
              <th scope="col" className={CELL}>
                <FileName name={c.a.filename} />
              </th>
              <th scope="col" className={CELL}>
                <FileName name={c.b.filename} />
              </th>
              <th scope="col" className="w-40 py-1.5 align-top">
                What differs
              </th>
            </tr>
          </thead>
          <tbody>
            {differences.map((d, k) => (
              <tr key={k} className="border-t border-slate-100">
                <td className={CELL}>
                  <Sentence d={d} side="a" />
                </td>
                <td className={CELL}>
                  <Sentence d={d} side="b" />
                </td>
                <td className="py-1.5 align-top text-xs text-slate-600">
                  {d.tokens.map((t, i) => (
                    <span key={i} className="block">
                      {t.kind}: {t.a} → {t.b}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** Duplicate: how alike the two are and how many chunks match. */
export function DuplicateEvidence({ c }: { c: Of<"duplicate"> }) {
  const { similarity, matched_chunk_pairs, chunk_pairs } = c.evidence;
  const identical = chunk_pairs.filter((p) => p.identical).length;
  const shownAll = chunk_pairs.length === matched_chunk_pairs;
  return (
    <p className="text-slate-700">
      Similarity {pct(similarity)}: {plural(matched_chunk_pairs, "matching chunk pair")}
      {shownAll && identical > 0 && ` (${identical === matched_chunk_pairs ? "all" : identical} identical)`}, of{" "}
      {plural(c.a.chunk_count, "chunk")} in {c.a.filename} and {plural(c.b.chunk_count, "chunk")} in {c.b.filename}.
    </p>
  );
}

/** Competing: the logged questions both are retrieved for, each side's best rank, each question opened in the inspector. */
export function CompetingEvidence({ c, agentId }: { c: Of<"competing">; agentId: number }) {
  const { shared_questions, close_questions, questions } = c.evidence;
  return (
    <div className="space-y-2">
      <p className="text-slate-700">
        Retrieved together for {plural(shared_questions, "logged question")}, ranked within one of each other in {close_questions}
        {questions.length < shared_questions && ` (the first ${questions.length} shown)`}:
      </p>
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="sr-only">
            Questions both {c.a.filename} and {c.b.filename} are retrieved for
          </caption>
          <thead className="text-left text-xs text-slate-600">
            <tr>
              <th scope="col" className={CELL}>
                Question
              </th>
              <th scope="col" className={CELL}>
                Rank of {c.a.filename}
              </th>
              <th scope="col" className="py-1.5 align-top">
                Rank of {c.b.filename}
              </th>
            </tr>
          </thead>
          <tbody>
            {questions.map((q, k) => (
              <tr key={k} className="border-t border-slate-100">
                <td className={CELL}>
                  {q.question === null ? (
                    <span className="text-slate-500">(its text is not kept)</span>
                  ) : (
                    <Link
                      className="text-blue-700 underline"
                      href={inspectorHref(agentId, q.question, Math.max(5, q.rank_a, q.rank_b), null)}
                    >
                      {q.question}
                    </Link>
                  )}
                </td>
                <td className={`${CELL} font-mono`}>{q.rank_a}</td>
                <td className="py-1.5 align-top font-mono">{q.rank_b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
