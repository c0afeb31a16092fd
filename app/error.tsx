"use client";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded border border-red-200 bg-red-50 p-6">
      <h1 className="text-lg font-semibold text-red-900">This page could not be shown</h1>
      <p className="mt-2 text-sm text-red-800">
        {error.digest ? `The server logged the details (reference ${error.digest}).` : error.message}
      </p>
      <button type="button" onClick={reset} className="mt-4 rounded bg-red-700 px-3 py-1.5 text-sm text-white">
        Try again
      </button>
    </div>
  );
}
