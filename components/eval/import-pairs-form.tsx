"use client";

import { useActionState, useState } from "react";
import { importTooLarge, MAX_IMPORT_BYTES } from "@/lib/validations/pair";
import { importPairsAction, type ImportState } from "@/lib/actions/pairs";
import { FileChooser } from "@/components/ui/file-chooser";
import { SubmitButton } from "@/components/ui/submit-button";

export function ImportPairsForm({ agentId }: { agentId: number }) {
  const [state, action] = useActionState<ImportState, FormData>(importPairsAction.bind(null, agentId), {});
  const rejected = state.report?.rejected ?? [];
  // Checked before sending: the server reads no form body past 1 MB, so it could not say why.
  const [tooLarge, setTooLarge] = useState<string | null>(null);
  const message = tooLarge ?? state.message;
  return (
    <form
      action={action}
      onSubmit={(e) => {
        const file = (e.currentTarget.elements.namedItem("file") as HTMLInputElement | null)?.files?.[0];
        setTooLarge(file && file.size > MAX_IMPORT_BYTES ? importTooLarge(file.size) : null);
        if (file && file.size > MAX_IMPORT_BYTES) e.preventDefault();
      }}
      className="space-y-3 rounded border border-slate-200 bg-white p-4"
      aria-describedby="import-status"
    >
      <h2 className="font-semibold">Import pairs</h2>
      <p className="text-sm text-slate-600">
        CSV with columns <code>query,expected[,note[,answerable]]</code> (a header line is optional) or JSONL with one{" "}
        <code>{`{"query", "expected"}`}</code> per line; a question no document should answer has an empty expected and{" "}
        <code>answerable</code> false. <code>expected</code> is a document&apos;s filename or id. Rows with an empty query, an unknown
        document or a pair that already exists are rejected and nothing is written for them.
      </p>
      <div className="flex flex-wrap items-end gap-4">
        <div className="flex flex-col gap-1">
          <span aria-hidden className="text-sm font-medium">
            Pairs file (.csv, .jsonl)
          </span>
          <FileChooser
            label="Pairs file (.csv, .jsonl)"
            name="file"
            required
            accept=".csv,.jsonl,.ndjson,.json,text/csv"
            describedBy="import-status"
            buttonText="Choose file"
          />
        </div>
        <SubmitButton pendingText="Importing…">Import</SubmitButton>
      </div>
      <div id="import-status" aria-live="polite" className="space-y-2 text-sm">
        {message && <p className={!tooLarge && state.report && state.report.accepted > 0 ? "text-green-800" : "text-red-700"}>{message}</p>}
        {!tooLarge && rejected.length > 0 && (
          <table className="w-full text-sm">
            <caption className="text-left font-medium text-red-800">Rejected rows</caption>
            <thead className="text-left">
              <tr>
                <th className="py-1 pr-3">Line</th>
                <th className="py-1 pr-3">Query</th>
                <th className="py-1 pr-3">Expected</th>
                <th className="py-1 pr-3">Reason</th>
              </tr>
            </thead>
            <tbody>
              {rejected.map((r) => (
                <tr key={r.row} className="border-t border-slate-200">
                  <td className="py-1 pr-3">{r.row}</td>
                  <td className="py-1 pr-3">{r.query ?? "—"}</td>
                  <td className="py-1 pr-3">{r.expected ?? "—"}</td>
                  <td className="py-1 pr-3">
                    <span className="font-medium">{r.reason}</span>: {r.message}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </form>
  );
}
