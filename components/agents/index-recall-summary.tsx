import Link from "next/link";
import type { IndexRecall } from "@/lib/retrieval/index-recall";
import { indexRecallSentence, indexRecallWarning } from "@/lib/client/index-recall";
import { MeasureRecallButton } from "./measure-recall-button";

/** The agent's index recall in one line, its warning below the threshold, and "Measure now" for editors. */
export function IndexRecallSummary({ recall, canMeasure }: { recall: IndexRecall; canMeasure: boolean }) {
  const warning = indexRecallWarning(recall);
  return (
    <section
      aria-labelledby="index-recall-heading"
      className={`space-y-2 rounded border p-3 text-sm ${warning ? "border-amber-300 bg-amber-50" : "border-slate-200 bg-white"}`}
    >
      <h2 id="index-recall-heading" className="sr-only">
        Index recall
      </h2>
      <p>
        {indexRecallSentence(recall)}
        {recall.measured_at && (
          <span className="text-slate-500">
            {" "}
            {/* When nothing could be measured, the time is of a check, not of a measurement. */}
            {recall.served_recall === null ? "Checked" : "Measured"}{" "}
            <time dateTime={recall.measured_at}>{new Date(recall.measured_at).toLocaleString("en-GB")}</time>.
          </span>
        )}
      </p>
      {warning && (
        <p className="text-amber-900">
          {warning}{" "}
          <Link href="/audit#rebuild-heading" className="text-blue-700 underline">
            Rebuild it on Index health
          </Link>
        </p>
      )}
      {canMeasure && <MeasureRecallButton agentId={recall.agent_id} />}
    </section>
  );
}
