import { ACCEPTED_EXTENSIONS } from "../extract/detect";
import { sanitizeDocumentPath } from "../validations/filename";

const BY_TYPE: Record<string, string> = {
  "text/html": ".html",
  "application/xhtml+xml": ".html",
  "text/plain": ".txt",
  "text/markdown": ".md",
  "text/x-markdown": ".md",
  "application/pdf": ".pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
};

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The document name of a page: its host and path (`help.example.com/articles/refunds.html`),
 * the query kept after `_`, with an extension the reader knows, from the path when it has one,
 * else from the Content-Type (HTML when there is none).
 */
export function pageFilename(url: string, contentType?: string | null): string {
  const u = new URL(url);
  let path = decode(u.pathname);
  if (path.endsWith("/")) path += "index";
  if (u.search.length > 1) path += `_${decode(u.search.slice(1)).replace(/[\\/]/g, "-")}`;
  const last = path.split("/").pop() ?? "";
  const dot = last.lastIndexOf(".");
  const known = dot > 0 && ACCEPTED_EXTENSIONS.includes(last.slice(dot).toLowerCase()) && !u.search;
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return sanitizeDocumentPath(`${u.host}${path}${known ? "" : (BY_TYPE[type] ?? ".html")}`);
}
