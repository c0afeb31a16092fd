/** The inspector with the query and the expected document filled in (and a retrieval mode): "why did it miss" in one click. */
export function inspectorHref(agentId: number, query: string, k: number, documentId: number | null, mode?: string): string {
  const params = new URLSearchParams({ q: query, k: String(k) });
  if (documentId !== null) params.set("expected", String(documentId));
  if (mode) params.set("mode", mode);
  return `/agents/${agentId}/search?${params}`;
}
