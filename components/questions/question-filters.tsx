import Form from "next/form";
import Link from "next/link";
import { QUESTION_STATUS_FILTER } from "@/lib/validations/questions";
import { statusLabel } from "./status-badge";

export interface QuestionFilterValues {
  status: string;
  q: string;
  since: string;
}

const FIELD = "rounded border border-slate-300 px-2 py-1.5 text-sm font-normal";

/** A GET form (next/form navigates without a full reload): the filters live in the URL, so a filtered list can be shared and reloaded. */
export function QuestionFilters({ agentId, values, error }: { agentId: number; values: QuestionFilterValues; error: string | null }) {
  const base = `/agents/${agentId}/questions`;
  const filtered = values.status !== "" || values.q !== "" || values.since !== "";
  return (
    // Keyed by the filters in effect, so "Clear filters" (a navigation, not a remount) empties the fields too.
    <Form
      key={`${values.status}|${values.q}|${values.since}`}
      action={base}
      role="search"
      aria-label="Filter questions"
      aria-describedby="question-filter-status"
      className="flex flex-wrap items-end gap-3"
    >
      <label className="flex flex-col gap-1 text-sm font-medium">
        Status
        <select name="status" defaultValue={values.status} className={FIELD}>
          <option value="">Any</option>
          {QUESTION_STATUS_FILTER.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Contains
        <input name="q" type="search" defaultValue={values.q} placeholder="words of the question" className={`${FIELD} w-56`} />
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Asked since
        <input name="since" type="date" defaultValue={values.since} className={FIELD} />
      </label>
      <button type="submit" className="rounded border border-blue-700 px-4 py-1.5 text-sm font-medium text-blue-800 hover:bg-blue-50">
        Filter
      </button>
      {filtered && (
        <Link href={base} className="py-1.5 text-sm text-blue-700 underline">
          Clear filters
        </Link>
      )}
      <p id="question-filter-status" aria-live="polite" className="w-full text-sm text-red-700">
        {error}
      </p>
    </Form>
  );
}
