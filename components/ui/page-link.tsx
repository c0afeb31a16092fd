import Link from "next/link";
import { pageLabel, type PageRange } from "@/lib/core/pages";

/** Where the document page's viewer shows a PDF at a page. */
export const viewerHref = (agentId: number, documentId: number, page: number) =>
  `/agents/${agentId}/documents/${documentId}/view?page=${page}`;

/**
 * The PDF pages a chunk lies on ("p. 3", "pp. 3–4"), opening the PDF's viewer at its first page;
 * nothing for a chunk without pages.
 */
export function PageLink({ agentId, documentId, pages }: { agentId: number; documentId: number; pages?: PageRange | null }) {
  if (!pages) return null;
  return (
    <Link
      data-testid="chunk-pages"
      href={viewerHref(agentId, documentId, pages.first)}
      className="whitespace-nowrap text-xs text-blue-700 underline"
    >
      {pageLabel(pages)}
      <span className="sr-only">: open the PDF at page {pages.first}</span>
    </Link>
  );
}
