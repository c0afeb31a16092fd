/**
 * The header of the table whose rows a chunk holds without it (lib/core/tables.ts): indexed before
 * the chunk's text, so it is shown above it. Only the column names; a Markdown separator line says nothing.
 */
export function TableContext({ context }: { context?: string | null }) {
  if (!context) return null;
  return (
    <p
      data-testid="chunk-context"
      className="mb-1 whitespace-normal font-mono text-xs text-slate-600"
      title="Indexed with this chunk: the header of the table its rows belong to"
    >
      Table columns: {context.split("\n")[0]}
    </p>
  );
}
