/** The inspector with the query and the expected document filled in (and a retrieval mode): "why did it miss" in one click. */
export function inspectorHref(
  agentId: number,
  query: string,
  k: number,
  documentId: number | null,
  mode?: string,
  filter?: Record<string, unknown> | null,
): string {
  const params = new URLSearchParams({ q: query, k: String(k) });
  if (documentId !== null) params.set("expected", String(documentId));
  if (mode) params.set("mode", mode);
  // The metadata filter the question was asked (or the pair is ranked) with: the inspector ranks under it too.
  if (filter) params.set("filter", JSON.stringify(filter));
  return `/agents/${agentId}/search?${params}`;
}
